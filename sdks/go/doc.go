// Package aar is the Go SDK of the Agent Authority Runtime: an HTTP client for every route of the service, the
// RFC 9421 request signer agents use, and offline verifiers for everything the service signs (decision maps,
// evidence packs with replay through a Go port of decide, delegation chains, checkpoints and inclusion proofs,
// webhook deliveries of the three profiles).
//
// Standard library only. Every verifier takes its trusted keys as an argument and never fetches a key named by the
// document it checks; every verifier returns a result, it never panics on hostile input.
package aar
