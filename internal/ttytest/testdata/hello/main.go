// Command hello is the program ttytest's tests build.
package main

import "fmt"

func main() { fmt.Println("hello") }
