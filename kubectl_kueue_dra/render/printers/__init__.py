"""kubectl's printers over the plugin's documents: ``-o name``, ``jsonpath``/``jsonpath-file``/
``jsonpath-as-json``, ``custom-columns``/``custom-columns-file``, ``--sort-by``, and the output
spec every command parses the same way (``spec``). The JSONPath dialect is kubectl's own
(client-go's ``util/jsonpath``): ``jsonpath_parse`` reads a template, ``jsonpath_eval`` runs it,
``gotext`` writes values the way Go's ``fmt`` and ``encoding/json`` write them, ``tabwriter`` lays
columns out as kubectl's tabwriter does."""
