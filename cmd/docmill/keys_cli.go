package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/docmill/docmill/client"
)

const keysUsage = `usage:
  docmill keys list [--json]
  docmill keys create [--name NAME]
  docmill keys rename PREFIX NAME
  docmill keys revoke PREFIX
each with --url and --key (DOCMILL_URL, DOCMILL_KEY): a key of the
account manages its others, and itself (operators: docmill accounts)`

// keysCmd manages the caller's API keys on a server, as a client.
func keysCmd(ctx context.Context, env *environment, args []string) error {
	return runCommand(ctx, env, args, "keys", keysUsage, map[string]command{
		"list": keysList, "create": keysCreate, "rename": keysRename, "revoke": keysRevoke,
	})
}

// keysArgs parses the flags of a keys command that takes n arguments and
// returns them with the client.
func keysArgs(env *environment, fs *flag.FlagSet, args []string, n int) (*client.Client, []string, error) {
	return clientArgs(env, fs, args, func(pos []string) error {
		if len(pos) != n {
			return usagef("want %d argument(s), got %d\n%s", n, len(pos), keysUsage)
		}
		return nil
	})
}

// keysList prints the account's keys, revoked ones too: a table, or --json.
func keysList(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("keys list", "keys list [--json] [flags]")
	asJSON := fs.Bool("json", false, "print the keys as JSON, one array")
	c, _, err := keysArgs(env, fs, args, 0)
	if err != nil {
		return err
	}
	keys, err := c.Keys(ctx)
	if err != nil {
		return err
	}
	return printList(env, *asJSON, keys, "PREFIX\tNAME\tCREATED\tLAST USED\tFROM\tSTATE", func(k client.Key) string {
		used, from, state := "never", "-", "active"
		if k.LastUsedAt != nil {
			used, from = k.LastUsedAt.UTC().Format(time.RFC3339), k.LastUsedIP
		}
		if k.RevokedAt != nil {
			state = "revoked " + k.RevokedAt.UTC().Format(time.RFC3339)
		} else if k.Current {
			state = "active (this key)"
		}
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", k.Prefix, k.Name, k.CreatedAt.UTC().Format(time.RFC3339), used, from, state)
	})
}

// keysCreate adds a key to the account and prints it, once.
func keysCreate(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("keys create", "keys create [--name NAME] [flags]")
	name := fs.String("name", "", "what the key is for (default: api)")
	c, _, err := keysArgs(env, fs, args, 0)
	if err != nil {
		return err
	}
	k, err := c.CreateKey(ctx, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "created key %s (%s)\n", k.Prefix, k.Name)
	fmt.Fprintf(env.stdout, "API key (shown once, store it now):\n%s\n", k.APIKey)
	return nil
}

// keysRename names one of the account's keys anew.
func keysRename(ctx context.Context, env *environment, args []string) error {
	c, pos, err := keysArgs(env, newFlags("keys rename", "keys rename [flags] PREFIX NAME"), args, 2)
	if err != nil {
		return err
	}
	k, err := c.RenameKey(ctx, pos[0], pos[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "renamed %s to %q\n", k.Prefix, k.Name)
	return nil
}

// keysRevoke revokes one of the account's keys (the calling one too).
func keysRevoke(ctx context.Context, env *environment, args []string) error {
	c, pos, err := keysArgs(env, newFlags("keys revoke", "keys revoke [flags] PREFIX"), args, 1)
	if err != nil {
		return err
	}
	k, err := c.RevokeKey(ctx, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "revoked %s (%s)\n", k.Prefix, k.Name)
	return nil
}
