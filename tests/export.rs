//! Tool declarations in every dialect: exact exports (snapshots), the rules
//! of OpenAI's strict mode checked on every schema, what each dialect
//! refuses and why, and calls made against every export binding back.

mod shapes;

use canon::export::Dialect;
use canon::toolbox::ToolSpec;
use canon::{tool, Policy, RepairRule, Tool, ToolCall, ToolOutcome};
use serde_json::{json, Map, Value};

fn refusals(dialect: Dialect) -> Vec<String> {
    shapes::toolbox()
        .specs()
        .filter_map(|spec| spec.export(dialect).err())
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn exports_are_exact() {
    let toolbox = shapes::toolbox();
    for (name, dialect) in [
        ("openai", Dialect::OpenAi { strict: false }),
        ("openai_strict", Dialect::OpenAi { strict: true }),
        (
            "openai_responses_strict",
            Dialect::OpenAiResponses { strict: true },
        ),
        ("anthropic", Dialect::Anthropic { strict: false }),
        ("anthropic_strict", Dialect::Anthropic { strict: true }),
        ("gemini", Dialect::Gemini),
        ("gemini_json_schema", Dialect::GeminiJsonSchema),
        ("mcp", Dialect::Mcp),
    ] {
        let (export, relaxed) = match toolbox.export_or_relax(dialect) {
            Ok(pair) => pair,
            Err(_) => {
                // Gemini cannot inline recursion: export the tools it can.
                let tools: Vec<Value> = toolbox
                    .specs()
                    .filter_map(|s| s.export(dialect).ok())
                    .collect();
                (json!(tools), Vec::new())
            }
        };
        let relaxed: Vec<&str> = relaxed.iter().map(|e| e.tool.as_str()).collect();
        insta::assert_json_snapshot!(name, json!({"relaxed": relaxed, "export": export}));
    }
}

#[test]
fn each_dialect_refuses_what_it_cannot_say_with_the_tool_and_pointer() {
    assert_eq!(
        refusals(Dialect::OpenAi { strict: true }),
        ["the tool `tag` cannot be declared for openai (strict) at /properties/meta: it has no type (it accepts any value), and strict mode needs one"]
    );
    assert_eq!(
        refusals(Dialect::Anthropic { strict: true }),
        [
            "the tool `tag` cannot be declared for anthropic (strict) at /properties/meta: it has no type; strict tool use needs one",
            "the tool `plant` cannot be declared for anthropic (strict) at /properties/tree/properties/children/items: a recursive type (`$ref: #/$defs/Tree`); Anthropic's strict tool use does not support recursive schemas",
            "the tool `grow` cannot be declared for anthropic (strict) at /properties/children/items/properties/children/items: a recursive type (`$ref: #`); Anthropic's strict tool use does not support recursive schemas",
        ]
    );
    assert_eq!(
        refusals(Dialect::Gemini),
        [
            "the tool `tag` cannot be declared for gemini at /properties/labels: an object with free-form members (a map); Gemini refuses an OBJECT whose `properties` are empty (`Dialect::GeminiJsonSchema` can declare it)",
            "the tool `plant` cannot be declared for gemini at /properties/tree/properties/children/items: a recursive type (`$ref: #/$defs/Tree`); Gemini needs every definition inlined",
            "the tool `grow` cannot be declared for gemini at /properties/children/items/properties/children/items: a recursive type (`$ref: #`); Gemini needs every definition inlined",
        ]
    );
    for dialect in [
        Dialect::OpenAi { strict: false },
        Dialect::Anthropic { strict: false },
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ] {
        assert_eq!(refusals(dialect), Vec::<String>::new(), "{dialect:?}");
    }
    // Each of the shapes strict mode refuses, alone.
    let strict = Dialect::OpenAi { strict: true };
    for (schema, pointer, reason) in [
        (
            json!({"type": "array", "items": true}),
            "/properties/x/items",
            "it accepts any value (`true`), and strict mode needs a type",
        ),
        (
            json!({"type": "array"}),
            "/properties/x",
            "an array whose items may be anything; strict mode needs an items schema",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "/properties/x",
            "an object with free-form members (a map); strict mode allows only declared properties",
        ),
        (
            json!({"type": "array", "prefixItems": [{"type": "number"}]}),
            "/properties/x",
            "strict mode does not support `prefixItems`",
        ),
        (
            json!({"allOf": [{"type": "string"}, {"type": "string", "minLength": 1}]}),
            "/properties/x",
            "strict mode does not support `allOf`",
        ),
    ] {
        let spec = ToolSpec::new(
            "t",
            "",
            json!({"type": "object", "properties": {"x": schema}}),
        );
        let error = spec.export(strict).unwrap_err();
        assert_eq!(
            (error.pointer.as_str(), error.reason.as_str()),
            (pointer, reason)
        );
    }
    // A union at the root, for Anthropic.
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
    );
    assert_eq!(
        spec.export(Dialect::Anthropic { strict: false })
            .unwrap_err()
            .reason,
        "`anyOf` at the root: Anthropic takes one object schema there"
    );
    // OpenAI takes an object schema at the root too: a tool whose
    // arguments are an internally tagged enum is refused, strict or not.
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "A"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "B"}}, "required": ["kind"]}
        ]}),
    );
    for dialect in [
        Dialect::OpenAi { strict: false },
        Dialect::OpenAi { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::OpenAiResponses { strict: true },
    ] {
        assert_eq!(
            spec.export(dialect).unwrap_err().reason,
            "`oneOf` at the root: OpenAI takes one object schema there",
            "{dialect:?}"
        );
    }
    // MCP takes object input schemas only.
    let spec = ToolSpec::new("t", "", json!({"type": "array"}));
    assert_eq!(
        spec.export(Dialect::Mcp).unwrap_err().reason,
        "an MCP inputSchema must be an object schema (`\"type\": \"object\"`)"
    );
}

#[test]
fn strict_falls_back_only_when_asked() {
    let toolbox = shapes::toolbox();
    let error = toolbox
        .export(Dialect::OpenAi { strict: true })
        .unwrap_err();
    assert_eq!(
        (error.tool.as_str(), error.pointer.as_str()),
        ("tag", "/properties/meta")
    );
    let (export, relaxed) = toolbox
        .export_or_relax(Dialect::OpenAi { strict: true })
        .unwrap();
    assert_eq!(relaxed.len(), 1);
    let strict: Vec<(&str, bool)> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["function"]["name"].as_str().unwrap(),
                t["function"]["strict"] == true,
            )
        })
        .collect();
    assert_eq!(
        strict,
        [
            ("search", true),
            ("tag", false),
            ("plant", true),
            ("search_code", true),
            ("label_issue", true),
            ("grow", true),
            ("ping", true)
        ]
    );
}

#[test]
fn names_are_checked_per_dialect() {
    let named = |name: &str| ToolSpec::new(name.to_owned(), "", json!({"type": "object"}));
    let long = "a".repeat(65);
    let cases = [
        ("get.weather", [false, false, true, true]),
        ("ns:tool", [false, false, true, false]),
        (long.as_str(), [false, false, true, true]),
        ("has space", [false, false, false, false]),
        ("", [false, false, false, false]),
        ("ok_name-1", [true, true, true, true]),
    ];
    let dialects = [
        Dialect::OpenAi { strict: false },
        Dialect::Anthropic { strict: false },
        Dialect::Gemini,
        Dialect::Mcp,
    ];
    for (name, allowed) in cases {
        for (dialect, allowed) in dialects.iter().zip(allowed) {
            assert_eq!(
                named(name).export(*dialect).is_ok(),
                allowed,
                "{name:?} for {dialect:?}"
            );
        }
    }
    assert_eq!(
        named("has space").export(Dialect::OpenAi { strict: false }).unwrap_err().to_string(),
        "the tool `has space` cannot be declared for openai: the name `has space` is not allowed (it contains ' '); a name is 1 to 64 of A-Z, a-z, 0-9, `_` and `-`"
    );
    assert!(named(&"a".repeat(129)).export(Dialect::Mcp).is_err());
}

/// Users of a service whose API names fields as it likes.
#[tool]
pub fn find_user(
    /// The user's display name.
    #[arg(rename = "display name")]
    name: String,
) -> String {
    name
}

#[test]
fn anthropic_refuses_property_names_the_api_refuses() {
    // The Messages API refuses a whole request whose input schema has a
    // property name outside `^[a-zA-Z0-9_.-]{1,64}$`, at any depth.
    let refused = |schema: Value, strict: bool| {
        ToolSpec::new("t", "", schema)
            .export(Dialect::Anthropic { strict })
            .unwrap_err()
    };
    let string = json!({"type": "string"});
    let long = "p".repeat(65);
    for (schema, pointer, problem) in [
        (
            json!({"type": "object", "properties": {"filter[id]": string}}),
            "/properties/filter[id]".to_owned(),
            "it contains '['",
        ),
        (
            json!({"type": "object", "properties": {long.clone(): string}}),
            format!("/properties/{long}"),
            "it has 65 characters",
        ),
        (
            json!({"type": "object", "properties": {"": string}}),
            "/properties/".to_owned(),
            "it is empty",
        ),
        (
            json!({"type": "object", "properties": {"outer": {
                "type": "array",
                "items": {"type": "object", "properties": {"naïve": string}},
            }}}),
            "/properties/outer/items/properties/naïve".to_owned(),
            "it contains 'ï'",
        ),
        (
            json!({
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/X"}},
                "$defs": {"X": {"type": "object", "properties": {"a/b": string}}},
            }),
            "/$defs/X/properties/a~1b".to_owned(),
            "it contains '/'",
        ),
    ] {
        for strict in [false, true] {
            let error = refused(schema.clone(), strict);
            assert_eq!(error.pointer, pointer, "strict: {strict}");
            assert!(
                error.reason.contains(&format!("({problem})")),
                "{}",
                error.reason
            );
        }
    }
    // Through #[tool]: a renamed parameter, and the whole message.
    assert_eq!(
        FindUser.spec().export(Dialect::Anthropic { strict: false }).unwrap_err().to_string(),
        "the tool `find_user` cannot be declared for anthropic at /properties/display name: the property name `display name` is not allowed (it contains ' '); Anthropic takes 1 to 64 of A-Z, a-z, 0-9, `_`, `.` and `-`"
    );
    assert_eq!(
        FindUser
            .spec()
            .export(Dialect::Anthropic { strict: true })
            .unwrap_err()
            .pointer,
        "/properties/display name"
    );
    // What the pattern allows, at its longest; other dialects are not asked.
    let allowed = "a.b-c_D9".repeat(8);
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"type": "object", "properties": {allowed: string}}),
    );
    for dialect in [
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
    ] {
        assert!(spec.export(dialect).is_ok(), "{dialect:?}");
    }
    assert!(FindUser
        .spec()
        .export(Dialect::OpenAi { strict: false })
        .is_ok());
}

#[test]
fn gemini_declares_a_tool_without_parameters_without_them() {
    // An OBJECT with empty `properties` is refused by the API; a
    // declaration may leave `parameters` out.
    for schema in [
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "object"}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Ping", "type": "object"}),
    ] {
        let spec = ToolSpec::new("ping", "Ping the service.", schema.clone());
        assert_eq!(
            spec.export(Dialect::Gemini).unwrap(),
            json!({"name": "ping", "description": "Ping the service."}),
            "{schema}"
        );
    }
    let toolbox = shapes::toolbox();
    let ping = toolbox.get("ping").unwrap().spec();
    assert_eq!(
        ping.export(Dialect::Gemini).unwrap(),
        json!({"name": "ping", "description": "Ping the service (a tool without parameters)."})
    );
    // JSON Schema has no such rule: `parametersJsonSchema` stays.
    assert_eq!(
        ping.export(Dialect::GeminiJsonSchema).unwrap()["parametersJsonSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
}

#[test]
fn gemini_refuses_objects_without_properties_below_the_root() {
    let map = "an object with free-form members (a map); Gemini refuses an OBJECT whose `properties` are empty (`Dialect::GeminiJsonSchema` can declare it)";
    let empty = "an object without properties (an empty struct); Gemini refuses an OBJECT whose `properties` are empty (`Dialect::GeminiJsonSchema` can declare it)";
    let nested = |x: Value| json!({"type": "object", "properties": {"x": x}});
    for (schema, pointer, reason) in [
        // HashMap<String, String>
        (
            nested(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            "/properties/x",
            map,
        ),
        // serde_json::Map<String, Value>
        (
            nested(json!({"type": "object", "additionalProperties": true})),
            "/properties/x",
            map,
        ),
        // Option<HashMap<String, u32>>
        (
            nested(
                json!({"type": ["object", "null"], "additionalProperties": {"type": "integer"}}),
            ),
            "/properties/x",
            map,
        ),
        // An empty struct, through `$ref`.
        (
            json!({
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/Nothing"}},
                "$defs": {"Nothing": {"type": "object", "properties": {}}},
            }),
            "/properties/x",
            empty,
        ),
        // Vec<Nothing>, Nothing denying unknown fields.
        (
            nested(
                json!({"type": "array", "items": {"type": "object", "additionalProperties": false}}),
            ),
            "/properties/x/items",
            empty,
        ),
        // A map at the root: the tool takes named members, not none.
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "",
            map,
        ),
    ] {
        let error = ToolSpec::new("t", "", schema.clone())
            .export(Dialect::Gemini)
            .unwrap_err();
        assert_eq!(
            (error.pointer.as_str(), error.reason.as_str()),
            (pointer, reason),
            "{schema}"
        );
        // `parametersJsonSchema` takes JSON Schema, maps and all.
        assert!(ToolSpec::new("t", "", schema)
            .export(Dialect::GeminiJsonSchema)
            .is_ok());
    }
}

/// Every schema in `schema`, with its pointer.
fn each_schema<'v>(schema: &'v Value, at: String, out: &mut Vec<(String, &'v Value)>) {
    out.push((at.clone(), schema));
    let Value::Object(obj) = schema else { return };
    for (key, sub) in obj {
        match (key.as_str(), sub) {
            ("properties" | "$defs", Value::Object(subs)) => {
                for (name, sub) in subs {
                    each_schema(sub, format!("{at}/{key}/{name}"), out);
                }
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    each_schema(sub, format!("{at}/{key}/{i}"), out);
                }
            }
            ("items" | "additionalProperties", sub @ Value::Object(_)) => {
                each_schema(sub, format!("{at}/{key}"), out)
            }
            _ => {}
        }
    }
}

#[test]
fn the_strict_openai_export_follows_every_rule() {
    const FORMATS: [&str; 9] = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    for spec in shapes::toolbox().specs() {
        let Ok(tool) = spec.export(Dialect::OpenAi { strict: true }) else {
            continue;
        };
        let parameters = &tool["function"]["parameters"];
        let mut schemas = Vec::new();
        each_schema(parameters, String::new(), &mut schemas);
        for (at, schema) in schemas {
            let obj = schema
                .as_object()
                .unwrap_or_else(|| panic!("{at}: a boolean schema"));
            let here = format!("{} {at}", spec.name());
            assert!(!obj.contains_key("oneOf"), "{here}: oneOf");
            assert!(!obj.contains_key("default"), "{here}: default");
            if obj.contains_key("$ref") {
                assert_eq!(obj.len(), 1, "{here}: something beside $ref");
            }
            if let Some(format) = obj.get("format") {
                assert!(
                    FORMATS.contains(&format.as_str().unwrap()),
                    "{here}: format {format}"
                );
            }
            let is_object =
                obj.get("type") == Some(&json!("object")) || obj.contains_key("properties");
            if is_object {
                assert_eq!(
                    obj.get("additionalProperties"),
                    Some(&json!(false)),
                    "{here}"
                );
                let names: Vec<&String> = obj["properties"].as_object().unwrap().keys().collect();
                let required: Vec<&str> = obj["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                assert_eq!(names, required, "{here}: every property required, in order");
            }
        }
        // Optional parameters became nullable, and nothing else did.
        if spec.name() == "search" {
            let props = &parameters["properties"];
            assert_eq!(props["limit"]["type"], json!(["integer", "null"]));
            assert_eq!(props["exact"]["type"], json!(["boolean", "null"]));
            assert_eq!(props["query"]["type"], json!("string"));
            assert_eq!(props["filter"]["description"], json!("Which files."));
        }
    }
}

#[test]
fn strict_limits_are_enforced() {
    let strict = Dialect::OpenAi { strict: true };
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    let error = ToolSpec::new("deep", "", deep).export(strict).unwrap_err();
    assert_eq!(
        error.reason,
        "objects nest deeper than strict mode's 10 levels"
    );
    let many: Map<String, Value> = (0..5_001)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let error = ToolSpec::new("wide", "", json!({"type": "object", "properties": many}))
        .export(strict)
        .unwrap_err();
    assert_eq!(
        error.reason,
        "more than strict mode's 5000 properties in all"
    );
    let values: Vec<String> = (0..1_001).map(|i| format!("v{i}")).collect();
    let error = ToolSpec::new(
        "enum",
        "",
        json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}}),
    )
    .export(strict)
    .unwrap_err();
    assert_eq!(
        error.reason,
        "more than strict mode's 1000 enum values in all"
    );
}

/// A call a model following `schema` could send: every property given,
/// `null` wherever the schema admits it.
fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    assert!(depth < 32, "sample recursion");
    let Some(obj) = schema.as_object() else {
        return json!("x");
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        let target = root.pointer(reference.trim_start_matches('#')).unwrap();
        return sample(target, root, depth + 1);
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if obj.get("nullable") == Some(&json!(true)) || types.contains(&"null") {
        return Value::Null;
    }
    if let Some(Value::Array(branches)) = obj.get("anyOf").or_else(|| obj.get("oneOf")) {
        if branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            return Value::Null;
        }
        return sample(&branches[0], root, depth + 1);
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return values[0].clone();
    }
    if let Some(value) = obj.get("const") {
        return value.clone();
    }
    match types.first().copied() {
        Some("string") => json!("x"),
        Some("integer") => json!(1),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => {
            let n = obj
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            let item = obj
                .get("items")
                .map(|i| sample(i, root, depth + 1))
                .or_else(|| {
                    obj.get("prefixItems")
                        .map(|p| sample(&p[0], root, depth + 1))
                })
                .unwrap_or(json!("x"));
            Value::Array(vec![item; n as usize])
        }
        Some("object") => {
            let mut out = Map::new();
            if let Some(Value::Object(props)) = obj.get("properties") {
                // Recursive types: one level of children is enough.
                for (name, sub) in props {
                    let value = if name == "children" && depth > 2 {
                        json!([])
                    } else {
                        sample(sub, root, depth + 1)
                    };
                    out.insert(name.clone(), value);
                }
            }
            Value::Object(out)
        }
        _ => json!("x"),
    }
}

fn parameters_of(dialect: Dialect, entry: &Value) -> Value {
    match dialect {
        Dialect::OpenAi { .. } => entry["function"]["parameters"].clone(),
        Dialect::OpenAiResponses { .. } => entry["parameters"].clone(),
        // A declaration without parameters: the model sends `{}`.
        Dialect::Gemini => entry
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"})),
        Dialect::Anthropic { .. } => entry["input_schema"].clone(),
        Dialect::GeminiJsonSchema => entry["parametersJsonSchema"].clone(),
        _ => entry["inputSchema"].clone(),
    }
}

#[tokio::test]
async fn calls_made_against_every_export_bind() {
    // A strict export makes optional parameters nullable: `Option<T>` binds
    // `null` as `None` as is; a parameter with a default needs
    // `null_as_absent` (what a toolbox exporting strict schemas enables).
    let toolbox = shapes::toolbox();
    let tolerant = shapes::toolbox().with_policy(Policy::DEFAULT.with(RepairRule::NullAsAbsent));
    let mut bound = 0;
    for dialect in Dialect::ALL {
        for spec in toolbox.specs() {
            let Ok(entry) = spec.export(dialect) else {
                continue;
            };
            let schema = parameters_of(dialect, &entry);
            let call = sample(&schema, &schema, 0);
            let result = tolerant
                .call(ToolCall::new("1", spec.name(), call.clone()))
                .await;
            assert!(
                matches!(result.outcome, ToolOutcome::Ran { .. }),
                "{} via {}: {call} -> {:?}",
                spec.name(),
                dialect.name(),
                result.outcome
            );
            bound += 1;
        }
    }
    // 7 tools in 9 dialects, but the 8 refusals above.
    assert_eq!(bound, 55);

    // Without the rule: `Option<T>` nulls bind to `None` ...
    let call = json!({"data_source_names": ["a"], "query": "q", "limit": null});
    let result = toolbox.call(ToolCall::new("1", "search_code", call)).await;
    assert_eq!(
        result.outcome,
        ToolOutcome::Ran {
            output: json!(["a"]),
            repairs: canon::Repairs::new()
        }
    );
    // ... and a defaulted parameter's null is explained to the model.
    let strict = toolbox
        .get("search")
        .unwrap()
        .spec()
        .export(Dialect::OpenAi { strict: true })
        .unwrap();
    let params = parameters_of(Dialect::OpenAi { strict: true }, &strict);
    let call = sample(&params, &params, 0);
    let result = toolbox.call(ToolCall::new("1", "search", call)).await;
    match result.outcome {
        ToolOutcome::Rejected(error) => assert_eq!(error.pointers(), ["/exact"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn mcp_entries_carry_title_annotations_and_object_output_schemas() {
    let mut toolbox = shapes::toolbox();
    toolbox.add(shapes::annotated()).unwrap();
    let list = toolbox.export(Dialect::Mcp).unwrap();
    let tools = list["tools"].as_array().unwrap();
    let search = &tools[0];
    assert_eq!(
        search["outputSchema"]["properties"]["hits"]["type"],
        "integer"
    );
    // `search_code` returns an array: no outputSchema (structured content is
    // an object).
    assert!(tools[3].get("outputSchema").is_none());
    let listed = tools.last().unwrap();
    assert_eq!(listed["title"], "List files");
    assert_eq!(listed["annotations"], json!({"readOnlyHint": true}));
}
