package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/docmill/docmill/client"
)

// Run a tool on a file, wait for the job (long polls) and save the result.
func ExampleClient_Process() {
	ctx := context.Background()
	c := client.New("http://localhost:8080", os.Getenv("DOCMILL_KEY"))

	in, err := os.Open("examples/report.pdf")
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	job, _, err := c.Process(ctx, "rotate-pdf", []client.File{{Name: "report.pdf", Body: in}},
		client.ProcessOptions{Params: map[string]string{"angle": "90", "pages": "1-2"}})
	if err != nil {
		log.Fatal(err)
	}
	if !job.Finished() { // 202: a long tool, or a busy server
		if job, err = c.WaitJob(ctx, job.JobID, 10*time.Minute); err != nil {
			log.Fatal(err)
		}
	}
	if job.Status != "done" {
		log.Fatalf("job %s ended %s: %+v", job.JobID, job.Status, job.Error)
	}
	out, err := os.Create(job.Result.Filename)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if _, err := c.Download(ctx, job.Result.URL, out); err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved", job.Result.Filename)
}

// Send a tool's params as its generated struct: a misspelt param or a
// value of the wrong type does not compile, and the optional ones left
// nil are not sent (the server's defaults apply).
func ExampleClient_ProcessTool() {
	ctx := context.Background()
	c := client.New("http://localhost:8080", os.Getenv("DOCMILL_KEY"))

	in, err := os.Open("examples/report.pdf")
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	params := client.CompressPDF{Preset: client.Ptr(client.CompressPDFPresetExtreme)}
	job, _, err := c.ProcessTool(ctx, params, []client.File{{Name: "report.pdf", Body: in}}, client.ProcessOptions{})
	if err != nil {
		log.Fatal(err)
	}
	saved, _ := job.Meta.Int("saved_bytes") // meta keeps every figure the server sends
	fmt.Println(job.JobID, job.Status, saved)
}

// Tell the user what the server refused: a *client.Problem carries the
// code, the fields at fault and the Retry-After.
func ExampleProblem() {
	c := client.New("http://localhost:8080", "dm_live_...")
	_, err := c.Account(context.Background())
	var p *client.Problem
	if errors.As(err, &p) {
		fmt.Println(p.StatusCode, p.Code, p.Detail, p.Fields, p.RetryAfter)
	}
}

// Retries are on by default (DefaultRetry); bound them, and say why the
// program waits.
func ExampleRetry() {
	c := client.New("http://localhost:8080", os.Getenv("DOCMILL_KEY"))
	c.Retry = client.Retry{
		MaxAttempts: 3,
		MaxWait:     10 * time.Second,
		OnRetry: func(e client.RetryEvent) {
			log.Printf("attempt %d failed (%v); trying again in %s", e.Attempt, e.Err, e.Wait)
		},
	}
	acct, err := c.Account(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s plan: %d of %d operations used\n", acct.Plan, acct.Usage.OperationsUsed, acct.Usage.OperationsLimit)
}

// Follow a long job (OCR) as it moves from queued to processing to done.
func ExampleClient_Await() {
	c := client.New("http://localhost:8080", os.Getenv("DOCMILL_KEY"))
	job, err := c.Await(context.Background(), "job_...", client.WaitOptions{
		PollWait: 5 * time.Second,
		OnPoll:   func(j *client.Job) { log.Printf("%s: %s", j.JobID, j.Status) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status)
}

// List the tools and their parameters.
func ExampleClient_Tools() {
	c := client.New("http://localhost:8080", "")
	tools, err := c.Tools(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		for _, p := range t.Params {
			fmt.Println(t.Slug, p.Name, p.Type, p.Default, p.Enum)
		}
	}
}
