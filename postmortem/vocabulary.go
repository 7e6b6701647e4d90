// Package postmortem is the domain of Hindsight, apart from storage and
// HTTP: the words a postmortem is described with (tag roles, severities,
// kinds of variant, action items' types, priorities and statuses), the
// limits of its fields, and Validate, the one check that the form, the
// JSON API, the importer and the store's writes all make.
package postmortem

import "slices"

// Choice is one value of a vocabulary, with what a page shows for it.
type Choice struct {
	Value, Label, Description string
}

// Label is the label of value among choices, or value itself.
func Label(choices []Choice, value string) string {
	for _, c := range choices {
		if c.Value == value {
			return c.Label
		}
	}
	return value
}

// Has reports whether value is one of choices.
func Has(choices []Choice, value string) bool {
	return slices.ContainsFunc(choices, func(c Choice) bool { return c.Value == value })
}

// Tag roles: what part a pattern played in an incident (the catalogue's
// section 4).
const (
	RoleTrigger        = "trigger"
	RoleAmplifier      = "amplifier"
	RoleContributing   = "contributing"
	RoleMissingDefence = "missing-defence"
	RoleMitigation     = "mitigation"
)

// RoleChoices are the tag roles in the order pages show them.
var RoleChoices = []Choice{
	{RoleTrigger, "Trigger", ""},
	{RoleAmplifier, "Amplifier", ""},
	{RoleContributing, "Contributing factor", ""},
	{RoleMissingDefence, "Missing defence / lesson", ""},
	{RoleMitigation, "Mitigation", ""},
}

// Roles lists the tag roles in the order pages show them.
var Roles = values(RoleChoices)

// RoleLabel is the human name of a tag role.
func RoleLabel(role string) string { return Label(RoleChoices, role) }

// ValidRole reports whether role is one of Roles.
func ValidRole(role string) bool { return Has(RoleChoices, role) }

// Severities are the severity levels, each with what it means. A
// postmortem's severity is one of them or empty (unknown).
var Severities = []Choice{
	{"SEV1", "SEV1 · Critical", "Most users cannot use the product, or data was lost or exposed. Everyone drops everything."},
	{"SEV2", "SEV2 · Major", "A core feature is down or badly degraded for many users."},
	{"SEV3", "SEV3 · Minor", "Partial degradation for some users; a workaround exists."},
	{"SEV4", "SEV4 · Low", "Small or internal impact: a slow page, a delayed report, a noisy alert."},
	{"SEV5", "SEV5 · Near miss", "No user impact: caught before it hurt, but worth learning from."},
}

// Variant kinds: how a member of a variant group relates to the write-up.
const (
	KindOriginal    = "original"
	KindTranslation = "translation"
	KindRewrite     = "rewrite"
)

// VariantKinds are the ways a postmortem can be a variant of another (the
// group's original is KindOriginal).
var VariantKinds = []Choice{
	{KindTranslation, "Translation", "The same write-up in another language."},
	{KindRewrite, "Copy or rewrite", "A repost, a reworded copy or another version in the same language."},
}

// Action items' types and statuses.
const (
	KindMitigate = "mitigate"
	KindPrevent  = "prevent"
	KindProcess  = "process"

	StatusOpen       = "open"
	StatusInProgress = "in-progress"
	StatusDone       = "done"
	StatusWontDo     = "wont-do"
)

// The vocabularies of action items.
var (
	ActionKinds = []Choice{
		{KindMitigate, "Mitigate", "Reduce the impact if it happens again."},
		{KindPrevent, "Prevent", "Stop it from happening again."},
		{KindProcess, "Process", "Change how we work: runbooks, reviews, alerts, training."},
	}
	ActionPriorities = []Choice{
		{"P0", "P0 · now", ""}, {"P1", "P1 · soon", ""}, {"P2", "P2 · planned", ""}, {"P3", "P3 · when possible", ""},
	}
	ActionStatuses = []Choice{
		{StatusOpen, "Open", ""}, {StatusInProgress, "In progress", ""},
		{StatusDone, "Done", ""}, {StatusWontDo, "Won't do", ""},
	}
)

// Statuses of a tag the classifier suggested.
const (
	SuggestionPending   = "suggested"
	SuggestionConfirmed = "confirmed"
	SuggestionDismissed = "dismissed"
)

// SuggestionStatuses are the statuses of a suggested tag.
var SuggestionStatuses = []Choice{
	{SuggestionPending, "Suggested", "Not reviewed yet."},
	{SuggestionConfirmed, "Confirmed", "A reviewer made it a tag."},
	{SuggestionDismissed, "Dismissed", "A reviewer said it does not apply."},
}

func values(choices []Choice) []string {
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = c.Value
	}
	return out
}

// LanguageNames are the languages pages name, each by its own name.
var LanguageNames = map[string]string{
	"en": "English", "es": "Español", "fr": "Français", "de": "Deutsch",
	"pt": "Português", "it": "Italiano", "ja": "日本語", "zh": "中文", "ko": "한국어",
	"ru": "Русский", "sv": "Svenska", "no": "Norsk", "hu": "Magyar",
}

// LanguageName is the name of the language of code, or code itself.
func LanguageName(code string) string {
	if n, ok := LanguageNames[code]; ok {
		return n
	}
	return code
}
