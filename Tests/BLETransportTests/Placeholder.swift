// Placeholder: replaced by this target's first tests.
