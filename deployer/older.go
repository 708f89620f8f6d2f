package deployer

import (
	"fmt"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// older is a journal of the same set and stage written before pushes cut sets in canonical
// order (its plan has no journal.OrderCanonical): it cut the set in the order of the input,
// under another key, so a push today cannot resume it.
type older struct {
	begin journal.Record
	res   push.Result
}

// olderJournal finds such a journal. A finished one stands for this push, as a re-run of
// the vipctl that wrote it would report it (nothing to send); an unfinished one is refused,
// since pushing the set again in the new order would resend the chunks it already landed.
// The set's old fingerprint (every address written as text) is computed only when a
// journal without the mark is on disk for this stage.
func (s *Scorer) olderJournal(stage uint64, set *scores.Set) (*older, error) {
	dir := filepath.Dir(s.journalKey(stage, "").Path(s.k.JournalDir))
	paths, err := filepath.Glob(filepath.Join(dir, fmt.Sprintf("stage-%d-*.jsonl", stage)))
	if err != nil {
		return nil, fmt.Errorf("find journals in %s: %w", dir, err)
	}
	var legacy string
	for _, p := range paths {
		b, ok, err := journal.ReadBegin(p)
		if err != nil || !ok || b.Order != "" || b.Stage != stage {
			continue // not an older push of this stage (a damaged one is no push of this set either)
		}
		if legacy == "" {
			legacy = set.LegacyFingerprint()
		}
		if b.Input != legacy {
			continue
		}
		j, err := journal.Open(p)
		if err != nil {
			return nil, err
		}
		defer j.Close()
		res := push.Result{Stage: stage, Chunks: b.Chunks, Hashes: make([]string, b.Chunks), Journal: p}
		for i := range b.Chunks {
			st := j.Chunk(i)
			if !st.Confirmed {
				return nil, fmt.Errorf("update scores stage %d: journal %s holds an unfinished push of this score set by an earlier version of this tool, "+
					"which cut chunks in the file's order (chunk %d of %d not confirmed); this version cuts them in address order and cannot resume it: "+
					"finish it with the version that started it, or move the journal away to push the whole set again (the scores already written are written again, with the same values)",
					stage, p, i, b.Chunks)
			}
			res.Hashes[i] = st.Hash
			res.Resumed++
		}
		return &older{begin: b, res: res}, nil
	}
	return nil, nil
}
