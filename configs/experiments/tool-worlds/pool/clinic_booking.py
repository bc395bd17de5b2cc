from spadework.envs import DeclaredWorld


class ClinicBookingEnv(DeclaredWorld):
    """A clinic's patients and doctors, and the visits that book one with the other."""

    collections = {
        "patients": {"name": ["Ana Lopez", "Ben Okafor", "Chen Wei", "Dara Singh", "Eli Novak", "Femi Adeyemi"],
                     "ward": ["east", "west", "north"], "age": range(18, 90)},
        "doctors": {"name": ["Dr. Hale", "Dr. Ito", "Dr. Moss", "Dr. Roy", "Dr. Sato"],
                    "specialty": ["cardiology", "dermatology", "neurology"], "free_slots": [0, 1, 2, 3, 4]},
    }
    links = {"visits": {"patient_id": "patients", "doctor_id": "doctors"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4
