package store

import (
	"context"
	"fmt"
	"strings"

	"hindsight/textnorm"
)

// withoutDirectionControls removes the text-direction controls from f's
// one-line fields, which refuse them (postmortem.CheckText), and reports
// whether it removed any. Only text saved before they were refused holds
// them: older versions in the history, and the postmortems that
// dropDirectionControls saves again.
func withoutDirectionControls(f *PostmortemFields) bool {
	changed := false
	for _, v := range []*string{&f.Title, &f.Organization, &f.Services, &f.Authors, &f.SourceURL} {
		if w := textnorm.DropBidiControls(*v); w != *v {
			*v, changed = w, true
		}
	}
	return changed
}

// directionControlsNote is the note of the versions dropDirectionControls saves.
const directionControlsNote = "Removed invisible text-direction controls from the title, organization, services, authors or source address: " +
	"one-line fields refuse them now, as they can make a title show in another order than it reads."

// dropDirectionControls saves each postmortem whose one-line fields hold
// text-direction controls, saved before they were refused, as a new
// version without them, by Hindsight with a note. Otherwise no save of it
// would go through, not even a change of who may read it or a record sent
// back unchanged through the API, until someone found the invisible
// character, and lists would go on showing the reordered text. Open runs
// it once (runOnce), over every postmortem, restricted ones included; the
// history keeps the text as it was.
func (s *Store) dropDirectionControls(ctx context.Context) error {
	ctx = WithEveryGroup(ctx)
	var conds []string
	var args []any
	for _, r := range textnorm.BidiControls {
		conds = append(conds, `instr(title || organization || services || authors || source_url, ?) > 0`)
		args = append(args, string(r))
	}
	slugs, err := queryColumn[string](ctx, s.db, `SELECT slug FROM postmortems WHERE `+strings.Join(conds, " OR ")+` ORDER BY id`, args...)
	if err != nil {
		return err
	}
	for _, slug := range slugs {
		err := s.inTx(ctx, func(tx *writeTx) error {
			cur, err := postmortemForUpdate(ctx, tx, slug)
			if err != nil {
				return err
			}
			f := cur.Fields()
			if !withoutDirectionControls(&f) {
				return nil
			}
			tx.audit(auditNote{kind: "postmortem.edit", postmortem: slug, signer: "Hindsight",
				what: fmt.Sprintf("saved version %d of “%s” without text-direction controls", cur.Version+1, f.Title)})
			_, err = s.savePostmortem(ctx, tx, cur, f, revisionMeta{Action: ActionEdit, Author: "Hindsight", Note: directionControlsNote})
			return err
		})
		if err != nil {
			return fmt.Errorf("postmortem %q: %w", slug, err)
		}
	}
	return nil
}
