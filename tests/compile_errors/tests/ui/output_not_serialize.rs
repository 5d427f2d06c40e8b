use canon::tool;

pub struct ReportCard;

/// Report on the query.
#[tool]
fn report(query: String) -> ReportCard {
    let _ = query;
    ReportCard
}

fn main() {}
