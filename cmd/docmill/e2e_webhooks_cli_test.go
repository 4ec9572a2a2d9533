package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// TestWebhooksCLI: docmill webhooks create, list, deliveries,
// rotate-secret and delete against a server, with a real receiver.
func TestWebhooksCLI(t *testing.T) {
	t.Parallel() // wait-bound; its server and receiver are its own
	s := startServer(t, "", "--allow-private-urls")
	rc := newReceiver(t, nil)
	cli := func(args ...string) string {
		return runCLI(t, append(append([]string{"webhooks"}, args...), "--url", s.URL, "--key", s.DevKey)...)
	}

	var created client.Webhook
	if err := json.Unmarshal([]byte(cli("create", rc.URL, "--events", "job.done")), &created); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.ID, "wh_") || !strings.HasPrefix(created.Secret, "whsec_") || len(created.Events) != 1 || created.Events[0] != "job.done" {
		t.Fatalf("created %+v", created)
	}
	if list := cli("list"); !strings.Contains(list, created.ID) || !strings.Contains(list, rc.URL) || !strings.Contains(list, "enabled") {
		t.Fatalf("list:\n%s", list)
	}

	j, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc.wait(t, 1, 10*time.Second)
	var attempts []client.WebhookAttempt
	poll.Until(t, 5*time.Second, func() (bool, string) {
		// The attempt is recorded once the receiver has answered.
		if err := json.Unmarshal([]byte(cli("deliveries", created.ID, "--json")), &attempts); err != nil {
			t.Fatal(err)
		}
		return len(attempts) > 0, "no delivery attempt recorded"
	})
	if len(attempts) != 1 || attempts[0].JobID != j.JobID || !attempts[0].Succeeded || attempts[0].Event != "job.done" {
		t.Fatalf("deliveries %+v", attempts)
	}
	if table := cli("deliveries", created.ID); !strings.Contains(table, j.JobID) || !strings.Contains(table, " ok ") {
		t.Fatalf("deliveries table:\n%s", table)
	}

	var rotated client.Webhook
	if err := json.Unmarshal([]byte(cli("rotate-secret", created.ID)), &rotated); err != nil {
		t.Fatal(err)
	}
	if rotated.Secret == "" || rotated.Secret == created.Secret || rotated.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotated %+v", rotated)
	}
	if out := cli("delete", created.ID); !strings.Contains(out, "deleted "+created.ID) {
		t.Fatalf("delete: %s", out)
	}
	if out := strings.TrimSpace(cli("list", "--json")); out != "[]" {
		t.Fatalf("list after delete: %s", out)
	}
	var stdout strings.Builder
	err = run(context.Background(), []string{"webhooks", "delete", created.ID, "--url", s.URL, "--key", s.DevKey}, func(string) string { return "" }, nil, &stdout, &stdout)
	if apiError(t, err, 404, "not_found"); err == nil {
		t.Fatal("deleting twice succeeded")
	}
}
