"""The repair engine: the loop that observes, acts on the next problem and keeps what
makes progress (``loop``), and what it acts with: verified candidate edits
(``proposals``, ``python_proposals``, ``shell_proposals``, ``candidates``), ranking by
the model (``rank``, ``fastpath``), a rewrite of the problem's window (``rewrite``) and
the ReAct agent (``agent``); the one answer to whether an edit is accepted
(``verifier``) and the limits every kept change keeps (``guard``); the one ``Edit`` type and text helpers (``edits``); a file's block
structure as its lines lay it out (``layout``); the step records (``trace``)."""
