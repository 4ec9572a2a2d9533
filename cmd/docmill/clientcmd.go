package main

import (
	"flag"

	"github.com/docmill/docmill/client"
)

// clientFlags locate a docmill server and the caller's key, and bound
// the retries of each call: the flags every client command takes.
type clientFlags struct {
	url     string
	key     string
	retries int
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", "http://localhost:8080", "address of the docmill server")
	fs.StringVar(&c.key, "key", "", "API key (dm_live_...)")
	fs.IntVar(&c.retries, "retries", client.DefaultRetry.MaxAttempts-1, "retries of a call after a network error, a 429, 503 or 507 with Retry-After, a 408, 502, 503, 504 or 500 internal or worker_lost (0: none)")
}

// keyed returns a client of the server with the key, or an error saying
// how to give one: every call but the catalogue needs it.
func (c *clientFlags) keyed() (*client.Client, error) {
	if c.key == "" {
		return nil, usagef("no API key: give --key or set DOCMILL_KEY (docmill accounts create makes one)")
	}
	if c.retries < 0 {
		return nil, usagef("--retries %d: want 0 or more", c.retries)
	}
	cl := client.New(c.url, c.key)
	cl.Retry.MaxAttempts = c.retries + 1
	return cl, nil
}

// clientArgs parses the flags of a client command into fs, the client's
// among them, and returns the client, with the key, and the positional
// arguments, once check has accepted them (an error refuses them).
func clientArgs(env *environment, fs *flag.FlagSet, args []string, check func(pos []string) error) (*client.Client, []string, error) {
	var cf clientFlags
	cf.register(fs)
	if err := env.parse(fs, args); err != nil {
		return nil, nil, err
	}
	if err := check(fs.Args()); err != nil {
		return nil, nil, err
	}
	c, err := cf.keyed()
	return c, fs.Args(), err
}

// noArgs is the check of a client command that takes no positional
// argument; usage is its group's.
func noArgs(usage string) func(pos []string) error {
	return func(pos []string) error {
		if len(pos) > 0 {
			return usagef("unexpected argument %q\n%s", pos[0], usage)
		}
		return nil
	}
}

// clientArg parses the flags of a client command that takes one
// positional argument, what, and returns the client and the argument;
// usage is the command's group's.
func clientArg(env *environment, fs *flag.FlagSet, args []string, what, usage string) (*client.Client, string, error) {
	c, pos, err := clientArgs(env, fs, args, func(pos []string) error {
		if len(pos) != 1 {
			return usagef("want one %s\n%s", what, usage)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return c, pos[0], nil
}
