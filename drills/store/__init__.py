"""What is kept: the history of attempts (SQLite), the records drawn from it, the schedule, export and import."""
