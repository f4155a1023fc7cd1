"""Terminal views: each draws data the commands return (grading reports, scoreboards, tables, charts, cards)."""
