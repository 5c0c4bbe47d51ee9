"""The commands, one package per verb, each in the same steps: a request (the flags, validated)
→ the facts (read once, through the view) → the decisions (pure) → the document (the JSON
contract the renderers and ``-o json`` share). A verb package imports Kueue, DRA and Kubernetes
semantics from below and never another verb's package; cli/ wires them to click."""
