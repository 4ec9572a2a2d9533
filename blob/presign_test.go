package blob_test

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
)

func testPresignUnsupported(t *testing.T, b *blob.Bucket) {
	put(t, b, "out/job_p/r.pdf", "x")
	u, ok, err := b.PresignGet(context.Background(), "out/job_p/r.pdf", "r.pdf", time.Minute)
	if ok || err != nil || u != "" {
		t.Errorf("PresignGet on a local bucket = %q, %v, %v; want \"\", false, nil", u, ok, err)
	}
}

func httpGet(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, body
}

func testPresignGet(t *testing.T, b *blob.Bucket) {
	ctx := context.Background()
	key := docmill.ResultKey("job_sig", "Résumé final (2).pdf")
	const content = "%PDF-1.7 presigned"
	put(t, b, key, content)

	t.Run("DownloadName", func(t *testing.T) {
		u, ok, err := b.PresignGet(ctx, key, "Résumé final (2).pdf", time.Minute)
		if err != nil || !ok {
			t.Fatalf("PresignGet = %v, %v; want ok", ok, err)
		}
		resp, body := httpGet(t, u)
		if resp.StatusCode != http.StatusOK || string(body) != content {
			t.Fatalf("GET = %d %q, want 200 %q", resp.StatusCode, body, content)
		}
		cd := resp.Header.Get("Content-Disposition")
		disp, params, err := mime.ParseMediaType(cd)
		if err != nil || disp != "attachment" || params["filename"] != "Résumé final (2).pdf" {
			t.Errorf("Content-Disposition = %q (%q, %q, %v), want attachment with the file name", cd, disp, params, err)
		}
	})

	t.Run("NoDownloadName", func(t *testing.T) {
		u, ok, err := b.PresignGet(ctx, key, "", time.Minute)
		if err != nil || !ok {
			t.Fatalf("PresignGet = %v, %v; want ok", ok, err)
		}
		if resp, body := httpGet(t, u); resp.StatusCode != http.StatusOK || string(body) != content {
			t.Fatalf("GET = %d %q, want 200 %q", resp.StatusCode, body, content)
		}
	})

	t.Run("Range", func(t *testing.T) {
		u, _, err := b.PresignGet(ctx, key, "r.pdf", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Range", "bytes=2-4")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusPartialContent || string(body) != content[2:5] {
			t.Errorf("ranged GET = %d %q, want 206 %q", resp.StatusCode, body, content[2:5])
		}
	})

	t.Run("MissingKey", func(t *testing.T) {
		u, ok, err := b.PresignGet(ctx, "out/job_nope/x.pdf", "x.pdf", time.Minute)
		if err != nil || !ok {
			t.Fatalf("PresignGet = %v, %v; want ok", ok, err)
		}
		if resp, _ := httpGet(t, u); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET of a missing key = %d, want 404", resp.StatusCode)
		}
	})

	t.Run("Tampered", func(t *testing.T) {
		u, _, err := b.PresignGet(ctx, key, "r.pdf", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		pu, _ := url.Parse(u)
		q := pu.Query()
		q.Set("response-content-disposition", "inline")
		pu.RawQuery = q.Encode()
		if resp, _ := httpGet(t, pu.String()); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET with a changed query = %d, want 403", resp.StatusCode)
		}
	})

	t.Run("Expired", func(t *testing.T) {
		u, ok, err := b.PresignGet(ctx, key, "r.pdf", time.Second)
		if err != nil || !ok {
			t.Fatalf("PresignGet = %v, %v; want ok", ok, err)
		}
		time.Sleep(2100 * time.Millisecond) // not ordering: a lower bound past the URL's 1 s expiry
		if resp, body := httpGet(t, u); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET after expiry = %d %q, want 403", resp.StatusCode, body)
		}
	})

	t.Run("BadExpiry", func(t *testing.T) {
		if _, ok, err := b.PresignGet(ctx, key, "r.pdf", 0); err == nil || ok {
			t.Errorf("PresignGet(expiry 0) = %v, %v; want an error", ok, err)
		}
	})
}
