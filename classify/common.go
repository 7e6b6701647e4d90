package classify

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"

	"hindsight/textnorm"
)

// A suggestion is not shown on evidence of common words alone: a cue of
// three everyday words in one sentence ("requests", "moved", "other") or a
// few weak words may add up to a score, but no reader accepts "requests …
// moves … other" as a sentence showing cascading overload. Such a
// suggestion needs at least one word of the pattern's own vocabulary, or a
// phrase of more than one word, among its evidence (Shown).

// commonWords are everyday words of English and Spanish beyond the stop
// words (which count as common too): general verbs, nouns, adjectives and
// adverbs that any account of any incident uses, and that say nothing of a
// failure mechanism on their own. They are matched by stem, so "moves",
// "moved" and "moving" are all "move". Words of the incident vocabulary
// that do name a mechanism (overload, retry, backlog, expired, DNS,
// deploy, configuration, …) are not here.
var commonWords = map[byte][]string{
	'e': {
		// verbs
		"be", "become", "begin", "bring", "call", "come", "continue", "do", "end", "find", "follow",
		"get", "give", "go", "happen", "have", "help", "keep", "know", "leave", "let", "look", "make",
		"mean", "move", "need", "put", "run", "say", "see", "seem", "send", "set", "show", "start",
		"take", "tell", "think", "try", "turn", "use", "want", "work", "worked", "working", "shift", "cause", "result",
		"occur", "affect", "include", "change", "handle", "process", "update", "complete", "return",
		"receive", "provide", "allow", "remain", "add", "check", "notice", "report",
		// nouns
		"time", "day", "hour", "minute", "second", "week", "month", "year", "thing", "way", "part",
		"number", "people", "person", "user", "customer", "client", "request", "service", "system",
		"data", "team", "problem", "issue", "impact", "case", "point", "place", "side", "lot", "rest",
		"kind", "type", "area", "level", "amount", "load", "traffic", "work", "result", "change",
		"question", "fact", "reason", "example", "information", "state", "status", "event", "incident",
		"outage", "situation", "period", "moment", "process", "action", "effect", "group", "set",
		// adjectives and adverbs
		"other", "another", "more", "less", "many", "much", "some", "several", "few", "all", "every",
		"each", "any", "new", "old", "high", "low", "large", "small", "big", "little", "long", "short",
		"first", "last", "next", "previous", "same", "different", "whole", "entire", "full", "remaining",
		"again", "also", "still", "just", "only", "then", "now", "already", "even", "back", "up",
		"down", "out", "over", "away", "around", "about", "above", "below", "behind", "during", "after",
		"before", "while", "since", "until", "later", "soon", "quickly", "slowly", "fully", "partially",
		"normal", "normally", "usual", "usually", "quite", "very", "really", "almost", "most", "least",
		"major", "minor", "general", "certain", "available", "possible", "able", "likely",
	},
	's': {
		// verbos
		"ser", "estar", "haber", "hacer", "tener", "ir", "venir", "dar", "poner", "decir", "ver",
		"llevar", "seguir", "pasar", "quedar", "empezar", "comenzar", "terminar", "usar", "mover",
		"trabajar", "cambiar", "causar", "ocurrir", "afectar", "incluir", "volver", "tratar",
		"recibir", "permitir", "notar", "revisar", "procesar", "actualizar", "completar",
		// sustantivos
		"tiempo", "dia", "hora", "minuto", "segundo", "semana", "mes", "ano", "cosa", "forma",
		"manera", "parte", "numero", "gente", "persona", "usuario", "cliente", "peticion", "servicio",
		"sistema", "datos", "equipo", "problema", "impacto", "caso", "punto", "lugar", "lado", "resto",
		"tipo", "nivel", "cantidad", "carga", "trafico", "trabajo", "resultado", "cambio", "evento",
		"incidente", "situacion", "periodo", "momento", "proceso", "accion", "efecto", "grupo",
		// adjetivos y adverbios
		"otro", "otra", "otros", "otras", "demas", "mas", "menos", "mucho", "muchos", "poco", "pocos",
		"varios", "todo", "todos", "cada", "nuevo", "viejo", "alto", "bajo", "grande", "pequeno",
		"largo", "corto", "primero", "ultimo", "siguiente", "anterior", "mismo", "distinto", "entero",
		"completo", "restante", "restantes", "tambien", "todavia", "solo", "entonces",
		"ahora", "ya", "incluso", "durante", "despues", "antes", "mientras", "desde", "hasta",
		"luego", "pronto", "normal", "normalmente", "muy", "casi", "general", "disponible", "posible",
	},
}

// commonStems are commonWords by stem, in their language.
var commonStems = sync.OnceValue(func() map[stems]bool {
	out := map[stems]bool{}
	for lang, words := range commonWords {
		for _, w := range words {
			st := stemOf(textnorm.Fold(w))
			if lang == 'e' {
				out[stems{en: st.en}] = true
			} else {
				out[stems{es: st.es}] = true
			}
		}
	}
	return out
})

// isCommonWord reports whether phrase, a phrase of evidence, is one common
// word: a stop word, or a word of commonWords, in English or Spanish.
func isCommonWord(phrase string) bool {
	words := strings.Fields(phrase)
	if len(words) != 1 {
		return false
	}
	w := textnorm.Fold(strings.Trim(words[0], ".,;:!?\"'()[]"))
	if w == "" || english.IsStopWord(w) || spanish.IsStopWord(w) {
		return true
	}
	st := stemOf(w)
	common := commonStems()
	return common[stems{en: st.en}] || common[stems{es: st.es}]
}

// CommonWordsOnly reports whether every phrase of s's evidence is one
// common word (see isCommonWord); a suggestion with no evidence has none.
func (s Suggestion) CommonWordsOnly() bool {
	some := false
	for _, e := range s.Evidence {
		for _, p := range e.Phrases {
			if !isCommonWord(p) {
				return false
			}
			some = true
		}
	}
	return some
}
