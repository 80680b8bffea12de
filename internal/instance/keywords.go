package instance

// Keyword tables (JSON Schema 2020-12 Core §10, Validation §6).
var (
	// AnnotationKeyword lists the keywords that do not constrain instances.
	AnnotationKeyword = map[string]bool{
		"title": true, "description": true, "default": true, "examples": true, "$comment": true,
		"deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true, "$id": true,
		"$anchor": true, "$dynamicAnchor": true, "$vocabulary": true, "contentEncoding": true,
		"contentMediaType": true, "contentSchema": true, "$defs": true, "definitions": true,
	}

	// TypeKeywords are the keywords that constrain only instances of one
	// type family.
	TypeKeywords = map[string]Types{
		"minimum": Number, "maximum": Number, "exclusiveMinimum": Number, "exclusiveMaximum": Number, "multipleOf": Number,
		"minLength": String, "maxLength": String, "pattern": String, "format": String,
		"items": Array, "prefixItems": Array, "minItems": Array, "maxItems": Array, "uniqueItems": Array,
		"contains": Array, "minContains": Array, "maxContains": Array, "unevaluatedItems": Array,
		"properties": Object, "required": Object, "additionalProperties": Object, "patternProperties": Object,
		"propertyNames": Object, "minProperties": Object, "maxProperties": Object, "dependentRequired": Object,
		"dependentSchemas": Object, "unevaluatedProperties": Object,
	}
)
