from spadework.envs import DeclaredWorld


class SchoolCoursesEnv(DeclaredWorld):
    """A school's students and courses, and the enrolments between them."""

    collections = {
        "students": {
            "name": ["Aiko", "Bruno", "Carla", "Dmitri", "Esme", "Farid"],
            "year": [1, 2, 3, 4],
            "credits": [0, 6, 12, 18, 24],
        },
        "courses": {
            "title": ["Algebra", "Biology", "Chemistry", "Drama", "Economics"],
            "room": ["R1", "R2", "R3", "Lab"],
        },
    }
    links = {"enrolments": {"student_id": "students", "course_id": "courses"}}
    tasks = ("update", "link")
    steps = 2
    size = 4
