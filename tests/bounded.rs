//! Rejecting hostile calls costs work bounded by what is reported, not by
//! the size of the data around it. Work is counted as bytes allocated on
//! the test's thread (no clock is read).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{json, Value};

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is passed to the system allocator unchanged; the
// count is a thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` or `realloc` above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The bytes `f` allocates on this thread, and its result.
fn allocated<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATED.with(Cell::get);
    let out = f();
    (out, ALLOCATED.with(Cell::get) - before)
}

#[test]
fn a_preview_of_ten_megabytes_allocates_a_preview() {
    let value = json!({"data": "x".repeat(10 << 20), "more": [1, 2, 3]});
    let (received, bytes) = allocated(|| canon::Received::of(&value));
    assert_eq!(received.preview.chars().count(), canon::PREVIEW_CHARS);
    assert!(bytes < 4096, "{bytes} bytes allocated for one preview");
}

#[test]
fn a_thousand_missing_properties_beside_512_kib_cost_no_copies_of_it() {
    let names: Vec<String> = (0..1000).map(|i| format!("p{i:04}")).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!({"type": "string"})))
        .chain([("data".to_owned(), json!({"type": "string"}))])
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let canon = canon::Canonicalizer::options()
        .tool("wide")
        .compile(&schema)
        .unwrap();
    let data = "d".repeat(512 << 10);
    let mut args = json!({ "data": data });
    let (result, bytes) = allocated(|| canon.canonicalize(&mut args));
    let error = result.expect_err("must be rejected");
    assert_eq!(error.violations().len(), 1000);
    assert!(error
        .violations()
        .iter()
        .all(|v| v.kind == canon::ViolationKind::Missing && v.received.is_none()));
    // A copy of the call per violation would be 512 MiB; a few copies of
    // it for the whole call are allowed.
    assert!(bytes < 16 << 20, "{bytes} bytes allocated");
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Lists {
    lists: Vec<Vec<String>>,
}

#[test]
fn forty_thousand_blank_strings_are_each_reported_once() {
    let spec = canon::ToolSpec::of::<Lists>("lists", "Lists of names.");
    let args = json!({ "lists": vec![""; 40_000] });
    let error = spec.bind::<Lists>(&args).expect_err("must be rejected");
    assert_eq!(error.violations().len(), 40_000);
    assert!(error
        .violations()
        .iter()
        .all(|v| v.kind == canon::ViolationKind::BlankString));
    // Sorted by pointer, as text: `/lists/0`, `/lists/1`, `/lists/10`, …
    assert_eq!(error.pointers()[..3], ["/lists/0", "/lists/1", "/lists/10"]);
    let text = error.to_string();
    assert_eq!(text.matches("got a blank string").count(), 20);
    assert!(text.contains(" And 39980 more violations. "), "{text}");
}
