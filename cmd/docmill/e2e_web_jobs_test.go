package main

import (
	"context"
	"strings"
	"time"

	"github.com/docmill/docmill/client"
)

// webJobs: the jobs view lists the account's jobs, newest first, with the
// download link of a done job, in English and Russian; it refreshes by
// itself while a job is unfinished, until that job ends.
func webJobs(b *browser, base string) {
	t := b.t
	key := b.eval(`localStorage.getItem("docmill.key")`)
	c := client.New(base, key)
	ctx := context.Background()
	// A long job, so that the view has an unfinished one to follow.
	long := startBlocker(t, c)
	b.eval(`(() => { location.hash = "#/jobs"; return ""; })()`)
	b.wait(`!document.getElementById("jobs").hidden && document.querySelectorAll("#jobs-body tr").length > 1`, 10*time.Second)
	if b.eval(`String(document.getElementById("catalog").hidden && document.getElementById("tool").hidden)`) != "true" {
		t.Error("the jobs view shares the screen")
	}
	first := b.eval(`document.querySelector("#jobs-body tr").dataset.job + " " + document.querySelector("#jobs-body tr").dataset.status`)
	if first != long.JobID+" queued" && first != long.JobID+" processing" {
		t.Errorf("first row %q, want %s unfinished", first, long.JobID)
	}
	done := `document.querySelector('#jobs-body tr[data-status="done"]')`
	if got := b.eval(done + `.textContent`); !strings.Contains(got, "Done") || !strings.Contains(got, "until") {
		t.Errorf("done row %q", got)
	}
	link := b.eval(done + `.querySelector("a[download]").href`)
	if !strings.HasPrefix(string(download(t, link)), "%PDF-") {
		t.Errorf("the done row's link %s is not the result", link)
	}
	b.shot("9-jobs")

	// Canceled elsewhere: the row follows by itself.
	if _, err := c.CancelJob(ctx, long.JobID); err != nil {
		t.Fatal(err)
	}
	b.wait(`document.querySelector('#jobs-body tr[data-job="`+long.JobID+`"]').dataset.status === "canceled"`, 15*time.Second)

	b.setLang("ru")
	if got := b.eval(`document.getElementById("jobs-heading").textContent + "|" + ` + done + `.querySelector(".status").textContent`); got != "Ваши недавние задания|Готово" {
		t.Errorf("ru jobs view %q", got)
	}
	b.setLang("en")
}
