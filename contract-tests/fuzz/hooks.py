"""Schemathesis hooks of `npm run test:fuzz` (loaded by schemathesis.toml)."""

import re

import schemathesis
from schemathesis.core.deserialization import deserialize_yaml
from schemathesis.core.media_types import YAML_MEDIA_TYPES


# Registered for every YAML media type, so that it replaces the built-in reader (the first match wins).
@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def yaml_text_or_data(ctx, response):
    """A YAML body is its text where the contract's schema for it is a string (GET /openapi.yaml: "the YAML text of
    this document"), else the data it holds, as Schemathesis reads YAML by default."""
    text = response.content.decode(response.encoding or "utf-8")
    declared = ctx.operation.definition.raw.get("responses", {}).get(str(response.status_code), {})
    schema = declared.get("content", {}).get("application/yaml", {}).get("schema", {})
    return text if schema.get("type") == "string" else deserialize_yaml(text)


def _poisoned(value):
    """Whether a JSON value holds a member `__proto__`, or a member `constructor` with a member `prototype`."""
    if isinstance(value, dict):
        if "__proto__" in value:
            return True
        constructor = value.get("constructor")
        if isinstance(constructor, dict) and "prototype" in constructor:
            return True
        return any(_poisoned(member) for member in value.values())
    if isinstance(value, list):
        return any(_poisoned(item) for item in value)
    return False


@schemathesis.hook
def filter_body(ctx, body):
    """No generated body with the member names the contract refuses wherever free-form members are allowed (its
    "Errors" section: prototype poisoning); a schema of OpenAPI 3.0 cannot exclude member names."""
    return not _poisoned(body)


def _header_patterns(operation):
    """The `pattern` of each header parameter of the operation (lower-case name), references resolved."""
    document = operation.schema.raw_schema

    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            target = document
            for key in node["$ref"].lstrip("#/").split("/"):
                target = target[key]
            node = target
        return node

    patterns = {}
    for parameter in operation.definition.raw.get("parameters", []):
        parameter = resolve(parameter)
        if parameter.get("in") == "header":
            pattern = resolve(parameter.get("schema", {})).get("pattern")
            if isinstance(pattern, str):
                patterns[parameter["name"].lower()] = re.compile(pattern)
    return patterns


def _removes_a_note_cell_in_a_scenario(ctx, case):
    """`DELETE /{tenant}/api/notes/{note_id}?cell_id=...` in the stateful phase. It removes only the cell the query
    names, but `use_after_free` takes the path alone for the removed resource (it ignores the query) and reports the
    note read afterwards. The other phases send this form as they send every other request."""
    return (
        getattr(case.meta.phase.name, "value", case.meta.phase.name) == "stateful"
        and ctx.operation.definition.raw.get("operationId") == "deleteNote"
        and "cell_id" in (case.query or {})
    )


@schemathesis.hook
def filter_case(ctx, case):
    """No case labelled positive whose header breaks that header's `pattern`, and no cell removal from a note in a
    stateful scenario (see above). The coverage phase makes no positive
    value for a header whose pattern needs a character other than a letter or digit (`If-Match`: quotes or `*`), and
    then builds the positive cases of the other parameters with a negative value of that header (`If-Match: 0`), which
    `positive_data_acceptance` takes for a valid request the server refused. Negative cases are kept as they are."""
    if case.meta is None:
        return True
    if _removes_a_note_cell_in_a_scenario(ctx, case):
        return False
    if not case.meta.generation.mode.is_positive:
        return True
    patterns = _header_patterns(ctx.operation)
    for name, value in (case.headers or {}).items():
        pattern = patterns.get(name.lower())
        if pattern is not None and isinstance(value, str) and pattern.search(value) is None:
            return False
    return True
