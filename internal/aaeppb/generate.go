// Package aaeppb holds the protobuf messages and gRPC service of AAEP's gRPC
// binding (appendix B.5), generated from aaep.proto. Do not edit the .pb.go
// files; change aaep.proto and regenerate with scripts/genproto, which runs:
//
//	protoc --go_out=. --go_opt=paths=source_relative \
//	    --go-grpc_out=. --go-grpc_opt=paths=source_relative aaep.proto
//
// with protoc 3.21.12 (Debian's protobuf-compiler), protoc-gen-go v1.36.12
// and protoc-gen-go-grpc v1.6.2.
package aaeppb

//go:generate ../../scripts/genproto
