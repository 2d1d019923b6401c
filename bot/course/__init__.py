"""The instructor's view of a course: its figures, their pictures, the page and the CSV."""
