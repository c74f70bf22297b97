"""Submissions as Canvas and Moodle give them, and grades as Canvas, Moodle and Blackboard import
them, on LMS-shaped files built here."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from coursekit.grading.instructor.intake import collect_submissions, detect_layout
from coursekit.grading.instructor.lms.blackboard import BlackboardGradeCenter
from coursekit.grading.instructor.lms.canvas import CanvasGradebook
from coursekit.grading.instructor.lms.moodle import MoodleWorksheet
from coursekit.grading.instructor.lms.roster import (
    Score,
    read_roster,
    scores_from_gradebook,
    write_grade_import,
)
from coursekit.grading.instructor.submissions import Submission

NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'

#: Canvas's "Download Submissions" zip: a late student, a resubmission, a PDF only, two
#: notebooks, and a file Canvas did not name.
CANVAS_FILES = {
    "doejohn_LATE_1001_5001_01-text.ipynb": NOTEBOOK,
    "leebea_1002_5002_01-text.ipynb": b"first try",
    "leebea_1002_5002_01-text-1.ipynb": b"second try",
    "leebea_1002_5002_01-text-2.ipynb": NOTEBOOK,
    "kimamy_1003_5003_answers.pdf": b"%PDF",
    "parkjo_1004_5004_part-a.ipynb": NOTEBOOK,
    "parkjo_1004_5004_part-b.ipynb": NOTEBOOK,
    "notes.txt": b"from the instructor",
}


def canvas_zip(path: Path, files: dict[str, bytes] = CANVAS_FILES) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return path


def test_a_canvas_zip_gives_one_submission_per_canvas_user(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    intake = collect_submissions([canvas_zip(tmp_path / "submissions.zip")], scratch)
    assert intake.layouts == ("canvas",)
    found = {submission.student: submission for submission in intake.submissions}
    assert list(found) == ["1001", "1002", "1003", "1004", "notes.txt"]
    assert found["1001"].late and found["1001"].path is not None
    assert found["1001"].path.name == "doejohn_LATE_1001_5001_01-text.ipynb"
    assert found["1002"].path is not None and found["1002"].path.read_bytes() == NOTEBOOK
    assert not found["1002"].late
    assert found["1003"] == Submission(
        "1003", None, "no notebook was submitted, only answers.pdf; submit the .ipynb file"
    )
    assert found["1004"].path is None
    assert "2 notebooks were submitted (part-a.ipynb, part-b.ipynb)" in found["1004"].problem
    assert found["notes.txt"].path is None
    assert "notes.txt belongs to no student" in found["notes.txt"].problem
    assert "<lastfirst>_<userid>_<submissionid>_<file name>" in found["notes.txt"].problem
    assert intake.late == {"1001"}


def test_moodle_folders_and_flattened_files_give_one_submission_per_participant(
    tmp_path: Path,
) -> None:
    download = tmp_path / "moodle"
    (download / "Ann Lee_101_assignsubmission_file_").mkdir(parents=True)
    (download / "Ann Lee_101_assignsubmission_file_" / "01-text.ipynb").write_bytes(NOTEBOOK)
    (download / "Ann Lee_101_assignsubmission_onlinetext_").mkdir()
    (download / "Ann Lee_101_assignsubmission_onlinetext_" / "onlinetext.html").write_text("hi")
    (download / "Bo Chen_102_assignsubmission_file_").mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        (download / "Bo Chen_102_assignsubmission_file_" / name).write_bytes(NOTEBOOK)
    (download / "Cy Dee_103_assignsubmission_file_01-text.ipynb").write_bytes(NOTEBOOK)
    (download / "Di Eze_104_assignsubmission_file_essay.docx").write_bytes(b"PK")
    (download / "stray").mkdir()
    assert detect_layout(download) == "moodle"
    found = {item.student: item for item in collect_submissions([download], tmp_path).submissions}
    assert list(found) == ["101", "102", "103", "104", "stray"]
    assert found["101"].path == download / "Ann Lee_101_assignsubmission_file_" / "01-text.ipynb"
    assert found["102"].problem.startswith("2 notebooks were submitted (a.ipynb, b.ipynb)")
    assert found["103"].path == download / "Cy Dee_103_assignsubmission_file_01-text.ipynb"
    assert "only essay.docx" in found["104"].problem
    assert "<Full Name>_<participant id>_assignsubmission_file_" in found["stray"].problem


def test_our_own_layouts_still_read_as_before_and_may_come_zipped(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "class.zip", "w") as archive:
        archive.writestr("class/amir.ipynb", NOTEBOOK)
        archive.writestr("class/bea/01-text.ipynb", NOTEBOOK)
    intake = collect_submissions([tmp_path / "class.zip"], tmp_path / "scratch")
    assert intake.layouts == ("ours",)
    assert [
        (item.student, item.path.name if item.path else None) for item in intake.submissions
    ] == [
        ("amir", "amir.ipynb"),
        ("bea", "01-text.ipynb"),
    ]


def test_a_folder_mixing_two_lms_downloads_is_refused(tmp_path: Path) -> None:
    (tmp_path / "leebea_1002_5002_x.ipynb").write_bytes(NOTEBOOK)
    (tmp_path / "Ann Lee_101_assignsubmission_file_").mkdir()
    with pytest.raises(ValueError, match="mixes Canvas's and Moodle's downloads"):
        collect_submissions([tmp_path], tmp_path / "scratch")


# Grades ------------------------------------------------------------------------------------------

CANVAS_ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,ch01 (4242),Quiz 1 (4243),Current Score\n"
    "    Points Possible,,,,,8,10,(read only)\n"
    '"Doe, John",1001,s1001,jdoe,Section A,,7,70\n'
    '"Lee, Bea",1002,s1002,blee,Section A,,9,90\n'
    '"Kim, Amy",1003,s1003,akim,Section B,,10,100\n'
)
SCORES = {
    "1001": Score(8, 8, "ok"),
    "1002": Score(2.5, 8, "timeout", "cell 9 ran past the 60 s limit"),
    "9999": Score(8, 8, "ok"),
}


def rows_of(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_canvas_import_fills_the_assignment_column_and_keeps_every_row(tmp_path: Path) -> None:
    (tmp_path / "export.csv").write_text(CANVAS_ROSTER, encoding="utf-8-sig")
    canvas = CanvasGradebook()
    roster = read_roster(tmp_path / "export.csv", canvas)
    report = write_grade_import(SCORES, roster, canvas, "ch01", 8, tmp_path / "import.csv")
    assert (report.column, report.students) == ("ch01 (4242)", 3)
    assert (report.missing, report.unknown, report.scaled_to) == (["1003"], ["9999"], None)
    table = rows_of(tmp_path / "import.csv")
    assert table[0] == CANVAS_ROSTER.splitlines()[0].split(",")
    assert table[1] == ["    Points Possible", "", "", "", "", "8", "10", "(read only)"]
    assert [row[5] for row in table[2:]] == ["8", "2.5", "0"]
    assert [row[6] for row in table[2:]] == ["7", "9", "10"]  # the other columns are untouched


def test_canvas_gets_a_new_column_with_its_points_when_the_export_has_none(tmp_path: Path) -> None:
    text = CANVAS_ROSTER.replace("ch01 (4242)", "Essay (77)")
    (tmp_path / "export.csv").write_text(text, encoding="utf-8")
    canvas = CanvasGradebook()
    roster = read_roster(tmp_path / "export.csv", canvas)
    report = write_grade_import(SCORES, roster, canvas, "ch01", 8, tmp_path / "import.csv")
    table = rows_of(tmp_path / "import.csv")
    assert report.column == "ch01" and table[0][-1] == "ch01"
    assert [row[-1] for row in table[1:]] == ["8", "8", "2.5", "0"]
    with pytest.raises(ValueError, match="has no column 'Quiz 9'.*its columns are 'Student'"):
        write_grade_import(SCORES, roster, canvas, "ch01", 8, tmp_path / "x.csv", "Quiz 9")


def test_moodle_worksheet_gets_grades_scaled_to_its_maximum_and_feedback(tmp_path: Path) -> None:
    worksheet = (
        'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
        '"Grade can be changed","Last modified (submission)","Last modified (grade)",'
        '"Feedback comments"\n'
        '"Participant 1001","John Doe",jd@example.org,"Submitted for grading",,100.00,Yes,'
        '"Monday, 1 September 2025, 9:00 AM",-,\n'
        '"Participant 1003","Amy Kim",ak@example.org,"No submission",,100.00,Yes,-,-,\n'
    )
    (tmp_path / "worksheet.csv").write_text(worksheet, encoding="utf-8")
    moodle = MoodleWorksheet()
    roster = read_roster(tmp_path / "worksheet.csv", moodle)
    report = write_grade_import(SCORES, roster, moodle, "ch01", 8, tmp_path / "import.csv")
    assert (report.column, report.scaled_to, report.missing) == ("Grade", 100, ["1003"])
    table = rows_of(tmp_path / "import.csv")
    assert table[0] == rows_of(tmp_path / "worksheet.csv")[0]
    grade, feedback = table[0].index("Grade"), table[0].index("Feedback comments")
    assert [row[grade] for row in table[1:]] == ["100", "0"]
    assert [row[feedback] for row in table[1:]] == ["8 / 8 points (ok)", "0 points: no submission"]
    assert table[1][:4] == [
        "Participant 1001",
        "John Doe",
        "jd@example.org",
        "Submitted for grading",
    ]


def test_blackboard_reads_a_utf16_tab_download_and_writes_quoted_commas(tmp_path: Path) -> None:
    download = (
        '"Last Name"\t"First Name"\t"Username"\t"Student ID"\t"ch01 [Total Pts: 8 Score] |5501"\n'
        '"Doe"\t"John"\t"jdoe"\t"1001"\t""\n'
        '"Kim"\t"Amy"\t"akim"\t"1003"\t""\n'
    )
    (tmp_path / "download.xls").write_bytes(download.encode("utf-16"))
    blackboard = BlackboardGradeCenter()
    roster = read_roster(tmp_path / "download.xls", blackboard)
    scores = {"jdoe": Score(6.5, 8, "ok")}
    report = write_grade_import(scores, roster, blackboard, "ch01", 8, tmp_path / "upload.csv")
    assert (report.column, report.missing) == ("ch01 [Total Pts: 8 Score] |5501", ["akim"])
    assert (tmp_path / "upload.csv").read_text(encoding="utf-8").splitlines() == [
        '"Last Name","First Name","Username","Student ID","ch01 [Total Pts: 8 Score] |5501"',
        '"Doe","John","jdoe","1001","6.5"',
        '"Kim","Amy","akim","1003","0"',
    ]


def test_a_roster_from_another_lms_is_refused_with_what_to_pass(tmp_path: Path) -> None:
    (tmp_path / "export.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    with pytest.raises(ValueError, match="no 'Identifier' column.*Download grading worksheet"):
        read_roster(tmp_path / "export.csv", MoodleWorksheet())
    (tmp_path / "latin1.csv").write_bytes("Student,ID\nZo\xeb,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8 or UTF-16 text"):
        read_roster(tmp_path / "latin1.csv", CanvasGradebook())


def test_two_columns_for_the_assignment_ask_for_lms_column(tmp_path: Path) -> None:
    text = CANVAS_ROSTER.replace("Quiz 1 (4243)", "CH01 (4244)")
    (tmp_path / "export.csv").write_text(text, encoding="utf-8")
    canvas = CanvasGradebook()
    roster = read_roster(tmp_path / "export.csv", canvas)
    with pytest.raises(ValueError, match="several columns for ch01.*--lms-column"):
        write_grade_import(SCORES, roster, canvas, "ch01", 8, tmp_path / "import.csv")
    report = write_grade_import(
        SCORES, roster, canvas, "ch01", 8, tmp_path / "import.csv", "CH01 (4244)"
    )
    assert report.column == "CH01 (4244)"


def test_scores_come_back_from_a_merged_gradebook(tmp_path: Path) -> None:
    (tmp_path / "grades.csv").write_text(
        "student,ch01.q1,total,status,reason,late\n1001,2,2,ok,,yes\n", encoding="utf-8"
    )
    assert scores_from_gradebook(tmp_path / "grades.csv", 8) == {"1001": Score(2, 8, "ok", "")}
    (tmp_path / "other.csv").write_text("name,points\nx,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a gradebook of coursekit grade"):
        scores_from_gradebook(tmp_path / "other.csv", 8)
