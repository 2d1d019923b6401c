"""What backs each figure of an answer: figures and their units (Chinese numerals too), the
sources they may come from, the rules that back them, the sides a comparison looks up."""
