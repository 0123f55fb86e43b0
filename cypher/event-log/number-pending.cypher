// A sequencer round in a statement of its own (fragments/number-round.cypher says what a round does).
{{number_round(log)}}
RETURN base, numbered
