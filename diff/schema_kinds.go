package diff

import (
	"fmt"
	"slices"
	"strings"
)

// schemaKind is one change a schema rule family finds, reported as the
// rule input-NAME or output-NAME by the direction compared (one of them
// when the kind is declared for one direction only). The name is spelled
// only here: the family files declare each rule with kindRule(kind,
// direction, …), and handlers emit findings by kind value
// (p.emit(kindEnumValueRemoved, …)), so a finding of an undeclared kind
// does not compile. The catalog links each kind to its declarations when
// it loads; TestRuleModelSchemaKinds checks that every kind has a
// declaration for each of its directions and every schema rule a kind.
type schemaKind struct {
	name string
	dirs []Direction
	in   *schemaRuleDef // input-NAME, linked by loadSchemaCatalog
	out  *schemaRuleDef // output-NAME, linked by loadSchemaCatalog
}

// schemaKinds is every kind, in declaration order.
var schemaKinds []*schemaKind

func newSchemaKind(name string, dirs ...Direction) *schemaKind {
	k := &schemaKind{name: name, dirs: dirs}
	schemaKinds = append(schemaKinds, k)
	return k
}

// def returns the rule of the kind in direction d, nil when the kind is not
// declared for d.
func (k *schemaKind) def(d Direction) *schemaRuleDef {
	loadSchemaCatalog()
	return k.linked(d)
}

// linked is def without loading the catalog.
func (k *schemaKind) linked(d Direction) *schemaRuleDef {
	if d == Output {
		return k.out
	}
	return k.in
}

// linkSchemaKinds points every kind at its rule declarations; an error
// names a kind without a declaration for one of its directions, a
// declaration in a direction its kind does not list, or a schema rule
// without a kind.
func linkSchemaKinds(byID map[string]*schemaRuleDef) error {
	var errs []string
	for id, r := range byID {
		switch {
		case r.kind == nil && (strings.HasPrefix(id, "input-") || strings.HasPrefix(id, "output-")):
			errs = append(errs, "schema rule "+id+" has no kind")
		case r.kind == nil:
		case !slices.Contains(r.kind.dirs, r.Direction):
			errs = append(errs, "kind "+r.kind.name+" is not declared for "+string(r.Direction)+" but has rule "+id)
		case r.Direction == Output:
			r.kind.out = r
		default:
			r.kind.in = r
		}
	}
	for _, k := range schemaKinds {
		for _, d := range k.dirs {
			if k.linked(d) == nil {
				errs = append(errs, "kind "+k.name+" has no "+string(d)+" rule")
			}
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return fmt.Errorf("diff: schema rule catalog: %s", strings.Join(errs, "; "))
	}
	return nil
}

// The kinds of the schema rules, by name.
var (
	kindAdditionalPropertiesClosed = newSchemaKind("additional-properties-closed", Input, Output)
	kindAdditionalPropertiesOpened = newSchemaKind("additional-properties-opened", Input, Output)
	kindAllOfBranchAdded           = newSchemaKind("all-of-branch-added", Input, Output)
	kindAllOfBranchRemoved         = newSchemaKind("all-of-branch-removed", Input, Output)
	kindAnyOfBranchAdded           = newSchemaKind("any-of-branch-added", Input, Output)
	kindAnyOfBranchRemoved         = newSchemaKind("any-of-branch-removed", Input, Output)
	kindCompositionChanged         = newSchemaKind("composition-changed", Input, Output)
	kindCompositionNarrowed        = newSchemaKind("composition-narrowed", Input, Output)
	kindCompositionWidened         = newSchemaKind("composition-widened", Input, Output)
	kindContainsAdded              = newSchemaKind("contains-added", Input, Output)
	kindContainsRemoved            = newSchemaKind("contains-removed", Input, Output)
	kindDefaultChanged             = newSchemaKind("default-changed", Input, Output)
	kindDependentRequiredAdded     = newSchemaKind("dependent-required-added", Input, Output)
	kindDependentRequiredRemoved   = newSchemaKind("dependent-required-removed", Input, Output)
	kindDependentSchemaAdded       = newSchemaKind("dependent-schema-added", Input, Output)
	kindDependentSchemaRemoved     = newSchemaKind("dependent-schema-removed", Input, Output)
	kindDeprecatedChanged          = newSchemaKind("deprecated-changed", Input, Output)
	kindDescriptionChanged         = newSchemaKind("description-changed", Input, Output)
	kindEnumAdded                  = newSchemaKind("enum-added", Input, Output)
	kindEnumRemoved                = newSchemaKind("enum-removed", Input, Output)
	kindEnumValueAdded             = newSchemaKind("enum-value-added", Input, Output)
	kindEnumValueRemoved           = newSchemaKind("enum-value-removed", Input, Output)
	kindEnumValueRenamed           = newSchemaKind("enum-value-renamed", Input)
	kindExamplesChanged            = newSchemaKind("examples-changed", Input, Output)
	kindFormatAdded                = newSchemaKind("format-added", Input, Output)
	kindFormatChanged              = newSchemaKind("format-changed", Input, Output)
	kindFormatRemoved              = newSchemaKind("format-removed", Input, Output)
	kindMaxContainsLowered         = newSchemaKind("max-contains-lowered", Input, Output)
	kindMaxContainsRaised          = newSchemaKind("max-contains-raised", Input, Output)
	kindMaxItemsLowered            = newSchemaKind("max-items-lowered", Input, Output)
	kindMaxItemsRaised             = newSchemaKind("max-items-raised", Input, Output)
	kindMaxLengthLowered           = newSchemaKind("max-length-lowered", Input, Output)
	kindMaxLengthRaised            = newSchemaKind("max-length-raised", Input, Output)
	kindMaxLowered                 = newSchemaKind("max-lowered", Input, Output)
	kindMaxPropertiesLowered       = newSchemaKind("max-properties-lowered", Input, Output)
	kindMaxPropertiesRaised        = newSchemaKind("max-properties-raised", Input, Output)
	kindMaxRaised                  = newSchemaKind("max-raised", Input, Output)
	kindMinContainsLowered         = newSchemaKind("min-contains-lowered", Input, Output)
	kindMinContainsRaised          = newSchemaKind("min-contains-raised", Input, Output)
	kindMinItemsLowered            = newSchemaKind("min-items-lowered", Input, Output)
	kindMinItemsRaised             = newSchemaKind("min-items-raised", Input, Output)
	kindMinLengthLowered           = newSchemaKind("min-length-lowered", Input, Output)
	kindMinLengthRaised            = newSchemaKind("min-length-raised", Input, Output)
	kindMinLowered                 = newSchemaKind("min-lowered", Input, Output)
	kindMinPropertiesLowered       = newSchemaKind("min-properties-lowered", Input, Output)
	kindMinPropertiesRaised        = newSchemaKind("min-properties-raised", Input, Output)
	kindMinRaised                  = newSchemaKind("min-raised", Input, Output)
	kindMultipleOfChanged          = newSchemaKind("multiple-of-changed", Input, Output)
	kindMultipleOfRelaxed          = newSchemaKind("multiple-of-relaxed", Input, Output)
	kindOneOfOverlap               = newSchemaKind("one-of-overlap", Input, Output)
	kindOtherKeywordChanged        = newSchemaKind("other-keyword-changed", Input, Output)
	kindPatternAdded               = newSchemaKind("pattern-added", Input, Output)
	kindPatternChanged             = newSchemaKind("pattern-changed", Input, Output)
	kindPatternRemoved             = newSchemaKind("pattern-removed", Input, Output)
	kindPropertyAdded              = newSchemaKind("property-added", Input, Output)
	kindPropertyAddedClosed        = newSchemaKind("property-added-closed", Output)
	kindPropertyRemoved            = newSchemaKind("property-removed", Input, Output)
	kindPropertyRemovedClosed      = newSchemaKind("property-removed-closed", Output)
	kindPropertyRenamed            = newSchemaKind("property-renamed", Input)
	kindRequiredAdded              = newSchemaKind("required-added", Input, Output)
	kindRequiredAddedWithDefault   = newSchemaKind("required-added-with-default", Input)
	kindRequiredRemoved            = newSchemaKind("required-removed", Input, Output)
	kindSchemaAdded                = newSchemaKind("schema-added", Output)
	kindSchemaRemoved              = newSchemaKind("schema-removed", Output)
	kindSchemaRewritten            = newSchemaKind("schema-rewritten", Input, Output)
	kindTitleChanged               = newSchemaKind("title-changed", Input, Output)
	kindTypeCoercible              = newSchemaKind("type-coercible", Input)
	kindTypeNarrowed               = newSchemaKind("type-narrowed", Input, Output)
	kindTypeWidened                = newSchemaKind("type-widened", Input, Output)
	kindUniqueItemsAdded           = newSchemaKind("unique-items-added", Input, Output)
	kindUniqueItemsRemoved         = newSchemaKind("unique-items-removed", Input, Output)
)
