package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill/client"
)

const webhooksUsage = `usage:
  docmill webhooks create [--events job.done,job.failed,job.canceled] URL
  docmill webhooks list [--json]
  docmill webhooks delete ID
  docmill webhooks rotate-secret ID
  docmill webhooks deliveries [--json] ID
each with --url and --key (DOCMILL_URL, DOCMILL_KEY)`

// webhooksCmd manages the caller's webhook endpoints on a server, as a
// client.
func webhooksCmd(ctx context.Context, env *environment, args []string) error {
	return runCommand(ctx, env, args, "webhooks", webhooksUsage, map[string]command{
		"create": webhooksCreate, "list": webhooksList, "delete": webhooksDelete,
		"rotate-secret": webhooksRotate, "deliveries": webhooksDeliveries,
	})
}

// webhookArgs parses the flags of a webhooks command that takes one
// argument (a URL or an endpoint id) and returns it with the client.
func webhookArgs(env *environment, fs *flag.FlagSet, args []string, what string) (*client.Client, string, error) {
	return clientArg(env, fs, args, what, webhooksUsage)
}

// webhooksCreate registers an endpoint and prints it with its secret,
// which the server shows only this once.
func webhooksCreate(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("webhooks create", "webhooks create [--events job.done,job.failed,job.canceled] [flags] URL")
	events := fs.String("events", "", "comma-separated events to send (default: all): job.done, job.failed, job.canceled")
	c, endpoint, err := webhookArgs(env, fs, args, "URL")
	if err != nil {
		return err
	}
	var list []string
	for _, e := range strings.Split(*events, ",") {
		if e = strings.TrimSpace(e); e != "" {
			list = append(list, e)
		}
	}
	wh, err := c.CreateWebhook(ctx, endpoint, list)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stderr, "Keep the secret: it is shown only now. Verify each delivery's webhook-signature with it (Standard Webhooks).")
	return printJSON(env, wh)
}

// webhooksList prints the account's endpoints: a table, or --json.
func webhooksList(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("webhooks list", "webhooks list [--json] [flags]")
	asJSON := fs.Bool("json", false, "print the endpoints as JSON, one array")
	c, _, err := clientArgs(env, fs, args, noArgs(webhooksUsage))
	if err != nil {
		return err
	}
	hooks, err := c.Webhooks(ctx)
	if err != nil {
		return err
	}
	return printList(env, *asJSON, hooks, "ID\tURL\tEVENTS\tSTATE", func(wh client.Webhook) string {
		state := "enabled"
		if !wh.Enabled {
			state = "disabled: " + wh.DisabledReason
		} else if wh.FailingSince != nil {
			state = "failing since " + wh.FailingSince.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("%s\t%s\t%s\t%s", wh.ID, wh.URL, strings.Join(wh.Events, ","), state)
	})
}

// webhooksDelete removes an endpoint.
func webhooksDelete(ctx context.Context, env *environment, args []string) error {
	c, id, err := webhookArgs(env, newFlags("webhooks delete", "webhooks delete [flags] ID"), args, "endpoint id")
	if err != nil {
		return err
	}
	if err := c.DeleteWebhook(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "deleted %s\n", id)
	return nil
}

// webhooksRotate gives an endpoint a new secret and prints it.
func webhooksRotate(ctx context.Context, env *environment, args []string) error {
	c, id, err := webhookArgs(env, newFlags("webhooks rotate-secret", "webhooks rotate-secret [flags] ID"), args, "endpoint id")
	if err != nil {
		return err
	}
	wh, err := c.RotateWebhookSecret(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stderr, "Keep the new secret: it is shown only now. The previous one signs beside it for 24 hours.")
	return printJSON(env, wh)
}

// webhooksDeliveries prints an endpoint's recent attempts, newest first.
func webhooksDeliveries(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("webhooks deliveries", "webhooks deliveries [--json] [flags] ID")
	asJSON := fs.Bool("json", false, "print the attempts as JSON, one array")
	c, id, err := webhookArgs(env, fs, args, "endpoint id")
	if err != nil {
		return err
	}
	attempts, err := c.WebhookDeliveries(ctx, id)
	if err != nil {
		return err
	}
	return printList(env, *asJSON, attempts, "WHEN\tEVENT\tJOB\tATTEMPT\tOUTCOME\tNEXT RETRY", func(a client.WebhookAttempt) string {
		outcome := "ok"
		switch {
		case a.StatusCode != nil && !a.Succeeded:
			outcome = "HTTP " + strconv.Itoa(*a.StatusCode)
		case a.Error != nil:
			outcome = *a.Error
		}
		next := "-"
		if a.NextRetryAt != nil {
			next = a.NextRetryAt.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("%s\t%s\t%s\t%d\t%s\t%s", a.AttemptedAt.UTC().Format(time.RFC3339), a.Event, a.JobID, a.Attempt, outcome, next)
	})
}
