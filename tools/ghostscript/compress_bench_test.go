package ghostscript_test

import (
	"os"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkCompress runs compress-pdf per preset on the image-heavy corpus
// files, reporting the output size (out-bytes) and output/input ratio.
// The comparison with Ghostscript alone, on every corpus PDF, is
// BenchmarkCompressVsGhostscript's. A smoke pass (toolstest.BenchSmoke)
// runs on the first file only.
func BenchmarkCompress(b *testing.B) {
	for _, f := range toolstest.BenchSize(imageHeavy, imageHeavy[:1]) {
		path := corpusPDF(b, f)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, preset := range []string{"low", "recommended", "extreme"} {
			b.Run(f+"/"+preset, func(b *testing.B) {
				var size int64
				for b.Loop() {
					out, err := run(b, "compress-pdf", map[string]string{"preset": preset}, path)
					if err != nil {
						b.Fatal(err)
					}
					size = out.Meta["output_size"].(int64)
				}
				b.ReportMetric(float64(size), "out-bytes")
				b.ReportMetric(float64(size)/float64(st.Size()), "ratio")
			})
		}
	}
}
