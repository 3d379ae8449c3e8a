"""The scorecard's claim kinds, one module each (analysis/kinds/NAME.py
for the [[NAME]] tables of analysis/claims.toml). A kind's module holds
all there is to the kind:

    SECTION   the title of the scorecard's table its rows go in (kinds
              that share a title share the table, in the file's order)
    ABOUT     the sentence under that title (the table's first kind's)
    HEADER    the table's columns
    COLUMNS   the columns a terminal keeps (analysis/scorecard_text.py)
    MEASURES  "effect", "share" or "base": what the at-a-glance line
              counts its scored rows as; None: not in it
    read(reader, loaded) -> claim
              one [[NAME]] table as the kind's claim (reader:
              analysis/claims.Reader; loaded: {kind: claims} of the kinds
              read before it, for a claim that names another by id)
    judged(scored, claims) -> [judging.Judged]
              its rows from the runs (scored.rows, the newest run of each
              experiment; scored.history, every run)

analysis/kinds/registry.py reads the file's kinds in the order its
[scorecard] kinds gives; analysis/scorecard.py makes the sections from
their rows.
"""
