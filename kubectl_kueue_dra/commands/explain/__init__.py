"""``explain``: what Kueue charges one workload (or a manifest not submitted yet), line by line,
whether that matches what Kueue recorded, and why it is (not) admitted; with no TYPE/NAME, every
Workload in scope, one line each."""
