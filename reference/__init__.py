"""The reference engine: the answer key every drill is graded against and compared with."""
