// Package docmill holds the vocabulary of the docmill document-processing
// service: jobs, tools, plans, accounts, keys and errors, and the interfaces
// of the boundaries (store, blob store, queue, rate limiter) that the adapter
// packages implement. It imports only the standard library.
package docmill

// Version is docmill's release, as outbound requests name it in their
// User-Agent; set at build time with
// -ldflags "-X github.com/docmill/docmill.Version=1.2.3".
var Version = "dev"
