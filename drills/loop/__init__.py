"""The drill loop: start an attempt, grade its file on demand or on every save, time it, end it."""
