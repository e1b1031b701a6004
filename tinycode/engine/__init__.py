"""The repair engine: the loop that observes, acts on the next problem and keeps what
makes progress (``loop``), and what it acts with: verified candidate edits
(``proposals``, ``python_proposals``, ``shell_proposals``, ``candidates``), ranking by
the model (``rank``, ``fastpath``), a rewrite of the problem's window (``rewrite``) and
the ReAct agent (``agent``); the guard every kept change passes (``guard``,
``progress``); the one ``Edit`` type and text helpers (``edits``); a file's block
structure as its lines lay it out (``layout``); the step records (``trace``)."""
