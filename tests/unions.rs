//! Unions in a published schema: `oneOf` admits a value exactly one branch
//! matches, and a union beside other keywords holds together with them.
//! The single pass reads unions as alternatives, so where that would admit
//! more than the schema, the call is left to `jsonschema`: refused when it
//! breaks the schema, bound as strict serde binds it when it does not.

use canon::toolbox::ToolSpec;
use canon::{tool, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// How a request is made.
#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
pub enum Kind {
    /// By a count.
    A {
        /// How many.
        x: u32,
    },
    /// By a name.
    B {
        /// Which.
        y: String,
    },
}

/// A request, its kind flattened into it.
#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
pub struct Request {
    /// Its id.
    pub id: String,
    /// Its kind: `A` or `B`, never both.
    #[serde(flatten)]
    pub kind: Kind,
}

/// Submit a request.
#[tool]
fn submit(request: Request) -> usize {
    request.id.len()
}

/// The violations of a refused call, as `pointer: message`.
fn refused<A: std::fmt::Debug>(bound: Result<canon::Bound<A>, canon::BindError>) -> Vec<String> {
    match bound {
        Ok(bound) => panic!("bound {:?}", bound.args),
        Err(error) => error
            .violations()
            .iter()
            .map(|v| format!("{}: {}", v.pointer, v.message))
            .collect(),
    }
}

#[test]
fn a_call_two_branches_of_a_one_of_match_is_refused() {
    // Schemars publishes the flattened enum as `oneOf` beside the
    // struct's own properties: `A` and `B` together match both branches.
    let both = json!({"request": {"id": "r", "A": {"x": 1}, "B": {"y": "s"}}});
    let from_value = refused(Submit.bind(&both));
    assert_eq!(refused(Submit.bind_str(&both.to_string())), from_value);
    assert_eq!(
        from_value,
        [
            "/request: expected a value that matches exactly one of the alternatives listed \
          here (`oneOf`), not several, got the object {\"id\":\"r\",\"A\":{\"x\":1},\"B\":{\"y\":\"s\"}}"
        ]
    );
    // One of them binds, from a value and from text.
    let one = json!({"request": {"id": "r", "B": {"y": "s"}}});
    let expected = Request {
        id: "r".into(),
        kind: Kind::B { y: "s".into() },
    };
    assert_eq!(Submit.bind(&one).unwrap().args.request, expected);
    assert_eq!(
        Submit.bind_str(&one.to_string()).unwrap().args.request,
        expected
    );

    // A foreign schema whose branches overlap: 5 is an integer and a
    // number.
    #[derive(Deserialize, Debug)]
    struct Number {
        #[allow(dead_code)]
        n: f64,
    }
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"type": "object", "properties": {"n": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
            "required": ["n"]}),
    );
    let five = json!({"n": 5});
    assert_eq!(refused(spec.bind::<Number>(&five)).len(), 1);
    assert_eq!(refused(spec.bind_str::<Number>(&five.to_string())).len(), 1);
    assert_eq!(spec.bind::<Number>(&json!({"n": 5.5})).unwrap().args.n, 5.5);
}

#[test]
fn a_union_beside_other_keywords_holds_with_them() {
    #[derive(Deserialize, Debug)]
    struct Code {
        code: String,
    }
    // `maxLength` holds whichever branch matches.
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"type": "object", "required": ["code"], "properties": {"code":
            {"type": "string", "maxLength": 3, "anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
    );
    let long = json!({"code": "abcdefgh"});
    let from_value = refused(spec.bind::<Code>(&long));
    assert_eq!(
        from_value,
        ["/code: expected a string of at most 3 characters, got the string \"abcdefgh\""]
    );
    assert_eq!(
        refused(spec.bind_str::<Code>(&long.to_string())),
        from_value
    );
    assert_eq!(
        spec.bind::<Code>(&json!({"code": "abc"}))
            .unwrap()
            .args
            .code,
        "abc"
    );

    // Names a union requires, which the target type does not.
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Either {
        a: Option<String>,
        #[allow(dead_code)]
        b: Option<String>,
    }
    let spec = ToolSpec::new(
        "t",
        "",
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "additionalProperties": false, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
    );
    assert_eq!(refused(spec.bind::<Either>(&json!({}))).len(), 1);
    assert_eq!(refused(spec.bind_str::<Either>("{}")).len(), 1);
    let a = json!({"a": "x"});
    assert_eq!(
        spec.bind::<Either>(&a).unwrap().args.a.as_deref(),
        Some("x")
    );
    assert_eq!(
        spec.bind_str::<Either>(&a.to_string())
            .unwrap()
            .args
            .a
            .as_deref(),
        Some("x")
    );
}

/// Issues matching a filter (open to other members: schemars refers to it
/// beside the tag rather than copying its members).
#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
pub struct Filter {
    /// The label.
    pub label: String,
}

/// Which issues.
#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(tag = "kind")]
pub enum Query {
    /// One issue.
    ById {
        /// Its number.
        id: u32,
    },
    /// Those a filter matches: the struct's members beside the tag.
    ByFilter(Filter),
}

/// Find issues.
#[tool]
fn find(query: Query) -> usize {
    match query {
        Query::ById { .. } => 1,
        Query::ByFilter(_) => 2,
    }
}

#[test]
fn an_internally_tagged_variant_holding_a_struct_can_be_called() {
    // schemars gives the variant as the tag's `properties` beside the
    // struct's `$ref`: canon publishes it as the one closed object it is,
    // and the struct closed as before for its other uses.
    let schema = Find.spec().input_schema();
    assert_eq!(
        schema["$defs"]["Query"]["oneOf"][1],
        json!({
            "type": "object",
            "properties": {
                "label": {"type": "string", "description": "The label."},
                "kind": {"type": "string", "const": "ByFilter"}
            },
            "required": ["label", "kind"],
            "description": "Those a filter matches: the struct's members beside the tag.",
            "additionalProperties": false
        }),
        "{schema}"
    );
    assert_eq!(
        schema["$defs"]["Filter"]["additionalProperties"],
        json!(false)
    );
    let call = json!({"query": {"kind": "ByFilter", "label": "bug"}});
    let expected = Query::ByFilter(Filter {
        label: "bug".into(),
    });
    assert_eq!(Find.bind(&call).unwrap().args.query, expected);
    assert_eq!(
        Find.bind_str(&call.to_string()).unwrap().args.query,
        expected
    );
    // A member neither declares is refused, by name.
    let extra = json!({"query": {"kind": "ByFilter", "label": "bug", "labl": "x"}});
    let violations = refused(Find.bind(&extra));
    assert_eq!(refused(Find.bind_str(&extra.to_string())), violations);
    assert_eq!(
        violations,
        ["/query/labl: unknown property; did you mean `label`?"]
    );
}

#[test]
fn strict_dialects_refuse_an_object_split_over_a_union() {
    use canon::export::Dialect;
    // The flattened enum: `request` holds `id` and a `oneOf` beside it.
    // Closing each part on its own, as strict mode does, no call matches.
    for (dialect, name) in [
        (Dialect::OpenAi { strict: true }, "openai (strict)"),
        (Dialect::Anthropic { strict: true }, "anthropic (strict)"),
    ] {
        let error = Submit.spec().export(dialect).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "the tool `submit` cannot be declared for {name} at "
            )),
            "{error}"
        );
        assert!(
            error.contains(": an object whose members are split between its `properties` and the"),
            "{error}"
        );
    }
    assert!(Submit.spec().export(Dialect::Mcp).is_ok());
}

/// An untagged enum whose second variant takes only optional members:
/// serde tries the first, and on a member of the wrong type falls through
/// to the second, which ignores it.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Either {
    A { x: u8 },
    B { y: Option<u8> },
}

/// Take one.
#[canon::tool]
fn take_either(u: Either) -> String {
    format!("{u:?}")
}

#[test]
fn an_untagged_enum_does_not_fall_through_to_a_variant_the_schema_refuses() {
    for call in [json!({"u": {"x": "s"}}), json!({"u": {"x": 300}})] {
        let error = TakeEither.bind(&call).unwrap_err();
        assert_eq!(error.pointers(), ["/u"], "{call}");
        assert!(TakeEither.bind_str(&call.to_string()).is_err(), "{call}");
    }
    for (call, bound) in [
        (json!({"u": {"x": 3}}), Either::A { x: 3 }),
        (json!({"u": {"y": 5}}), Either::B { y: Some(5) }),
        (json!({"u": {}}), Either::B { y: None }),
    ] {
        assert_eq!(TakeEither.bind(&call).unwrap().args.u, bound, "{call}");
        assert_eq!(
            TakeEither.bind_str(&call.to_string()).unwrap().args.u,
            bound,
            "{call}"
        );
    }
}
