//! The trace formats `canon replay` reads besides its own JSON Lines.
