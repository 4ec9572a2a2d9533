package sandbox

// ReadyEnded is closed when the program of key's waiting spare has
// ended (at once when none waits): the external tests wait on it for a
// spare that dies before its job instead of sleeping.
func (s *Spares) ReadyEnded(key string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp := s.ready[key]; sp != nil {
		return sp.proc.Done()
	}
	done := make(chan struct{})
	close(done)
	return done
}

// Settle waits until the spares being started are ready (or failed):
// the tests take a spare only once its start, which Take leaves to the
// background, has ended.
func (s *Spares) Settle() { s.starts.Wait() }
