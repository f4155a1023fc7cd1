"""The mock interview (``drill interview``): the question bank, its schedule, the plan of a session,
what the history keeps of one, and its Markdown transcript."""
