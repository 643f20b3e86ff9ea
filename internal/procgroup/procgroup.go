// Package procgroup starts a child process in a process group of its own
// and kills the whole group, so that nothing a child forks outlives it.
// Where process groups do not exist (not unix), only the child itself is
// killed.
package procgroup
