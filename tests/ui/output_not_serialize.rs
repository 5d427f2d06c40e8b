use canon::tool;

pub struct ReportCard;

#[tool]
fn report(query: String) -> ReportCard {
    let _ = query;
    ReportCard
}

fn main() {}
