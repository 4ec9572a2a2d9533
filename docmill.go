// Package docmill holds the vocabulary of the docmill document-processing
// service: jobs, tools, plans, accounts, keys and errors, and the interfaces
// of the boundaries (store, blob store, queue, rate limiter) that the adapter
// packages implement. It imports only the standard library.
package docmill
