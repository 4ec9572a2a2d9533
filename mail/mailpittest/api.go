package mailpittest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Address is a mailbox as Mailpit reports it.
type Address struct {
	Name    string
	Address string
}

// Summary is a message as Mailpit lists it.
type Summary struct {
	ID        string
	MessageID string
	From      *Address
	To        []Address
	Subject   string
	Created   time.Time
}

// Message is one received message with its parts.
type Message struct {
	ID        string
	MessageID string
	From      *Address
	To        []Address
	Subject   string
	Date      time.Time
	// Username is the user the sender authenticated as (empty without
	// SMTP AUTH).
	Username string
	// Text and HTML are the plain text and HTML parts (empty when absent).
	Text string
	HTML string
}

// SentTo reports whether addr (compared case-insensitively) is among
// the message's recipients.
func (m *Summary) SentTo(addr string) bool { return sentTo(m.To, addr) }

func sentTo(to []Address, addr string) bool {
	for _, a := range to {
		if strings.EqualFold(a.Address, addr) {
			return true
		}
	}
	return false
}

// Messages lists every message received, newest first.
func (s *Server) Messages() ([]Summary, error) {
	var res struct {
		Messages []Summary `json:"messages"`
	}
	if err := s.api(http.MethodGet, "/api/v1/messages?limit=100000", &res); err != nil {
		return nil, err
	}
	return res.Messages, nil
}

// Message returns one message with its text and HTML parts.
func (s *Server) Message(id string) (*Message, error) {
	var m Message
	if err := s.api(http.MethodGet, "/api/v1/message/"+url.PathEscape(id), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// DeleteAll deletes every message.
func (s *Server) DeleteAll() error {
	return s.api(http.MethodDelete, "/api/v1/messages", nil)
}

// WaitFor waits until at least n messages sent to address "to" have arrived
// and returns all of them, oldest first, with their parts. It fails t
// when fewer have arrived within timeout.
func (s *Server) WaitFor(t testing.TB, to string, n int, timeout time.Duration) []*Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		list, err := s.Messages()
		var mine []Summary
		for _, m := range list {
			if m.SentTo(to) {
				mine = append(mine, m)
			}
		}
		if err == nil && len(mine) >= n {
			out := make([]*Message, 0, len(mine))
			for i := len(mine) - 1; i >= 0; i-- {
				m, err := s.Message(mine[i].ID)
				if err != nil {
					t.Fatalf("mailpittest: %v", err)
				}
				out = append(out, m)
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpittest: %d of %d messages to %s arrived within %v (list error: %v)", len(mine), n, to, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// api makes one request to Mailpit's API and decodes its JSON answer into
// out (unless nil).
func (s *Server) api(method, path string, out any) error {
	req, err := http.NewRequest(method, s.HTTPURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("mailpit %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mailpit %s %s: %s", method, path, resp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("mailpit %s %s: %w", method, path, err)
	}
	return nil
}
