"""The learning management systems a class lives in: their downloads of submissions and the CSV
files their gradebooks import.

- :mod:`.files`: a file of a bulk download, as the student it belongs to and the name they gave it;
- :mod:`.canvas`: Canvas's "Download Submissions" names and its gradebook CSV;
- :mod:`.moodle`: Moodle's "Download all submissions" folders and its offline grading worksheet;
- :mod:`.blackboard`: Blackboard's Grade Center upload;
- :mod:`.roster`: read the gradebook an LMS exports and fill in the assignment's column;
- :mod:`.formats`: the formats by the name `coursekit grade --lms` takes.

See the book's Exercises page, "From your LMS and back".
"""
