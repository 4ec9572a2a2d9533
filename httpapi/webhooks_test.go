package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// TestWebhookEndpoints: an account's webhook endpoints over the API:
// created (the secret shown once, the events in the catalogue's order),
// listed, read, their deliveries shown newest first, the secret rotated
// (the previous one's end shown), a disabled one enabled again, deleted;
// another account sees none of them.
func TestWebhookEndpoints(t *testing.T) {
	a := newProcAPI(t, nil)
	key, _ := a.account(t, docmill.Plan{})
	otherKey, _ := a.account(t, docmill.Plan{})

	var wh webhookBody
	w := a.call(key, http.MethodPost, "/v1/webhooks", `{"url": "https://hooks.example/in", "events": ["job.failed", "job.done"]}`)
	decode(t, w, http.StatusCreated, &wh)
	if wh.Secret == "" || !wh.Enabled || len(wh.Events) != 2 || wh.Events[0] != "job.done" || w.Header().Get("Location") != "/v1/webhooks/"+wh.ID {
		t.Errorf("created %+v (Location %q)", wh, w.Header().Get("Location"))
	}
	var all webhookBody
	decode(t, a.call(key, http.MethodPost, "/v1/webhooks", `{"url": "https://hooks.example/all"}`), http.StatusCreated, &all)
	if len(all.Events) != len(docmill.WebhookEvents) {
		t.Errorf("events %v, want all of them", all.Events)
	}
	var list struct {
		Webhooks []webhookBody `json:"webhooks"`
	}
	decode(t, a.call(key, http.MethodGet, "/v1/webhooks", ""), http.StatusOK, &list)
	if len(list.Webhooks) != 2 || list.Webhooks[0].Secret != "" || list.Webhooks[1].Secret != "" {
		t.Errorf("list %+v, want both, without their secrets", list.Webhooks)
	}
	var got webhookBody
	decode(t, a.call(key, http.MethodGet, "/v1/webhooks/"+wh.ID, ""), http.StatusOK, &got)
	if got.ID != wh.ID || got.URL != "https://hooks.example/in" {
		t.Errorf("get %+v", got)
	}

	checkDeliveriesAndEnable(t, a, key, wh.ID)
	var rotated webhookBody
	decode(t, a.call(key, http.MethodPost, "/v1/webhooks/"+wh.ID+"/rotate-secret", ""), http.StatusOK, &rotated)
	if rotated.Secret == "" || rotated.Secret == wh.Secret || rotated.PreviousSecretExpiresAt == nil {
		t.Errorf("rotated %+v, want a new secret and the old one's end", rotated)
	}

	for _, target := range []string{"/v1/webhooks/" + wh.ID, "/v1/webhooks/" + wh.ID + "/deliveries"} {
		if w := a.call(otherKey, http.MethodGet, target, ""); w.Code != http.StatusNotFound {
			t.Errorf("another account's GET %s: %d, want 404", target, w.Code)
		}
	}
	if w := a.call(otherKey, http.MethodDelete, "/v1/webhooks/"+wh.ID, ""); w.Code != http.StatusNotFound {
		t.Errorf("another account's DELETE: %d, want 404", w.Code)
	}
	if w := a.call(key, http.MethodDelete, "/v1/webhooks/"+wh.ID, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", w.Code, w.Body)
	}
	if w := a.call(key, http.MethodGet, "/v1/webhooks/"+wh.ID, ""); w.Code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d, want 404", w.Code)
	}
}

// checkDeliveriesAndEnable records two failed attempts of endpoint id,
// the second disabling it, and checks that GET .../deliveries shows them
// newest first (?limit too), that the endpoint reads as disabled, and
// that POST .../enable enables it again.
func checkDeliveriesAndEnable(t *testing.T, a *procAPI, key, id string) {
	t.Helper()
	// Two failed attempts, the second disabling the endpoint.
	now := time.Now()
	next := now.Add(time.Minute)
	for i, at := range []*docmill.WebhookAttempt{
		{WebhookID: id, MessageID: "msg_1", Event: "job.done", JobID: "job_1", Attempt: 1, AttemptedAt: now.Add(-time.Minute), StatusCode: 503, Error: "HTTP 503", NextRetryAt: &next},
		{WebhookID: id, MessageID: "msg_1", Event: "job.done", JobID: "job_1", Attempt: 2, AttemptedAt: now, Error: "connection refused"},
	} {
		disable := ""
		if i == 1 {
			disable = "every delivery failed"
		}
		if _, err := a.st.RecordWebhookAttempt(t.Context(), at, disable); err != nil {
			t.Fatal(err)
		}
	}
	var deliveries struct {
		Deliveries []attemptBody `json:"deliveries"`
	}
	decode(t, a.call(key, http.MethodGet, "/v1/webhooks/"+id+"/deliveries?limit=1", ""), http.StatusOK, &deliveries)
	if d := deliveries.Deliveries; len(d) != 1 || d[0].Attempt != 2 || d[0].StatusCode != nil || d[0].Error == nil {
		t.Errorf("deliveries %+v, want the newest, without a status code", d)
	}
	decode(t, a.call(key, http.MethodGet, "/v1/webhooks/"+id+"/deliveries", ""), http.StatusOK, &deliveries)
	if d := deliveries.Deliveries; len(d) != 2 || d[1].StatusCode == nil || *d[1].StatusCode != 503 || d[1].NextRetryAt == nil {
		t.Errorf("deliveries %+v, want both, the older with its 503 and retry", d)
	}
	var got webhookBody
	decode(t, a.call(key, http.MethodGet, "/v1/webhooks/"+id, ""), http.StatusOK, &got)
	if got.Enabled || got.DisabledAt == nil || got.DisabledReason == "" || got.FailingSince == nil {
		t.Errorf("after the disabling attempt: %+v", got)
	}
	got = webhookBody{}
	decode(t, a.call(key, http.MethodPost, "/v1/webhooks/"+id+"/enable", ""), http.StatusOK, &got)
	if !got.Enabled || got.DisabledAt != nil {
		t.Errorf("enabled: %+v", got)
	}

}

// TestWebhookRefusals: bad bodies, a missing url, events empty or
// unknown, a URL the checker refuses, a limit out of range, an unknown
// endpoint, and one endpoint more than the plan allows.
func TestWebhookRefusals(t *testing.T) {
	a := newProcAPI(t, nil)
	a.s.cfg.CheckWebhookURL = func(_ context.Context, field, u string) error {
		if u == "http://10.0.0.1/" {
			return docmill.ParamError(field, "is a private address")
		}
		return nil
	}
	key, _ := a.account(t, docmill.Plan{})
	var wh webhookBody
	decode(t, a.call(key, http.MethodPost, "/v1/webhooks", `{"url": "https://hooks.example/in"}`), http.StatusCreated, &wh)
	cases := []struct {
		method, target, body string
		status               int
		code                 docmill.Code
	}{
		{http.MethodPost, "/v1/webhooks", `{"link": "x"}`, 400, docmill.CodeInvalidRequest},
		{http.MethodPost, "/v1/webhooks", `{}`, 400, docmill.CodeInvalidParameter},
		{http.MethodPost, "/v1/webhooks", `{"url": "https://a.example", "events": []}`, 400, docmill.CodeInvalidParameter},
		{http.MethodPost, "/v1/webhooks", `{"url": "https://a.example", "events": ["job.started"]}`, 400, docmill.CodeInvalidParameter},
		{http.MethodPost, "/v1/webhooks", `{"url": "http://10.0.0.1/"}`, 400, docmill.CodeInvalidParameter},
		{http.MethodGet, "/v1/webhooks/" + wh.ID + "/deliveries?limit=0", "", 400, docmill.CodeInvalidParameter},
		{http.MethodGet, "/v1/webhooks/" + wh.ID + "/deliveries?limit=101", "", 400, docmill.CodeInvalidParameter},
		{http.MethodGet, "/v1/webhooks/wh_none/deliveries", "", 404, docmill.CodeNotFound},
		{http.MethodPost, "/v1/webhooks/wh_none/enable", "", 404, docmill.CodeNotFound},
		{http.MethodPost, "/v1/webhooks/wh_none/rotate-secret", "", 404, docmill.CodeNotFound},
		{http.MethodDelete, "/v1/webhooks/wh_none", "", 404, docmill.CodeNotFound},
	}
	for _, c := range cases {
		w := a.call(key, c.method, c.target, c.body)
		if w.Code != c.status || problemCode(t, w) != c.code {
			t.Errorf("%s %s %s: %d %s, want %d %s", c.method, c.target, c.body, w.Code, w.Body, c.status, c.code)
		}
	}
	// The plan's most endpoints: the next one is a conflict.
	for n := 1; ; n++ {
		w := a.call(key, http.MethodPost, "/v1/webhooks", `{"url": "https://b.example"}`)
		if w.Code == http.StatusConflict {
			if problemCode(t, w) != docmill.CodeConflict {
				t.Errorf("one endpoint too many: %s", w.Body)
			}
			break
		}
		if w.Code != http.StatusCreated || n > 100 {
			t.Fatalf("endpoint %d: %d %s, want 201 until a 409", n+1, w.Code, w.Body)
		}
	}
}
