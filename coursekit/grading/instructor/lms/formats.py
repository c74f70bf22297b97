"""The LMS formats ``coursekit grade --lms`` writes, by the name given on the command line."""

from __future__ import annotations

from coursekit.grading.instructor.lms.blackboard import BlackboardGradeCenter
from coursekit.grading.instructor.lms.canvas import CanvasGradebook
from coursekit.grading.instructor.lms.moodle import MoodleWorksheet
from coursekit.grading.instructor.lms.roster import LmsFormat

FORMATS: dict[str, type[LmsFormat]] = {
    "canvas": CanvasGradebook,
    "moodle": MoodleWorksheet,
    "blackboard": BlackboardGradeCenter,
}
