"""The instructor's side of the exercises: generate the student notebooks and grade a class.

A student needs none of this: ``check`` and the questions live one level up, in
:mod:`coursekit.grading`. An instructor runs it through the command line (``coursekit assign``,
``coursekit grade``), which needs the ``grade`` extra (Jupyter's kernel and notebook packages).
One module per step:

- :mod:`.assign`: the student version of each solution notebook;
- :mod:`.submissions`: find a class's submissions and read each without trusting it;
- :mod:`.sandbox`, :mod:`.kernel`, :mod:`.memory_probe`: the kernel that runs a submission under
  OS limits and a guard, driven cell by cell with time and output limits;
- :mod:`.exchange`, :mod:`.grader`, :mod:`.hidden`: call each answer in that kernel, on the
  question's cases and the instructor's hidden ones, and judge it with the student's engine;
- :mod:`.worker`, :mod:`.batch`, :mod:`.gradebook`: grade a class in parallel and write the CSV
  and one feedback file per student;
- :mod:`.archive`, :mod:`.intake`, :mod:`.lms`: read submissions as an LMS gives them (a zip,
  Canvas's and Moodle's layouts) and write the CSV the LMS imports;
- :mod:`.shards`: make sure every shard of a class comes back before they are merged;
- :mod:`.autograder`: the same grading as Gradescope's autograder;
- :mod:`.validate`, :mod:`.selfcheck`: prove that solutions get full marks, exercises zero, and
  that the student notebooks run.
"""
