"""Racing: run configurations on growing prefixes of one question order and drop the ones an
anytime-valid test finds worse than the leader (:mod:`.elimination`). Pure logic, no tracking."""
