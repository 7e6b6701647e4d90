package importer

// SetBatch has pl's Dir read n files ahead, so that a test of a few files
// crosses batches.
func SetBatch(pl *Pipeline, n int) { pl.batch = n }
