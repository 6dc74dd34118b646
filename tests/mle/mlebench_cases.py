"""Synthetic MLE-bench competitions and edge-case submissions for the mle-bench differential test.

For each competition of :data:`COMPS`, :func:`build` writes a prepared folder in mle-bench's layout
and file names (``<id>/prepared/public/<sample>``, ``<id>/prepared/private/<answers>``, the
``config.yaml`` naming both), with the columns mle-bench's ``prepare.py`` writes; :func:`cases`
gives the edge-case submissions (:data:`CASES`) as CSV bytes. tensorflow2-question-answering,
whose answers are annotated examples in JSON lines, is built by ``mlebench_qa_cases.py`` and has
whole-file cases of its own (:func:`case_names`). Everything is seeded by the competition's id.
This module imports nothing from wmrl, so that the expected verdicts in
``data/mlebench_differential.json`` could be computed once, outside this repository, by
mle-bench's own grade functions (783b15a) on exactly these files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from . import mlebench_qa_cases as QA

N = 24  # answer rows

CASES = (
    "perfect",
    "noisy",
    "shuffled",
    "permuted_columns",
    "extra_column",
    "missing_column",
    "missing_id",
    "renamed_id",
    "duplicate_id",
    "unknown_id",
    "extra_row",
    "missing_row",
    "float_ids",
    "nan",
    "text_in_prediction",
    "continuous",
    "hard_labels",
    "unnormalised",
    "out_of_range",
    "negative",
    "repeated_column",
    "wide",
    "header_only",
    "short_row",
)


@dataclass(frozen=True)
class Comp:
    """One competition: its id column, prediction columns and what the answers hold.

    ``kind``: ``proba`` (0/1 answers, probabilities submitted), ``label`` (classes both sides),
    ``value`` (positive numbers), ``onehot`` (one-hot answers, row probabilities submitted),
    ``multilabel`` (0/1 per column, probabilities per column)."""

    id_column: str
    columns: tuple[str, ...]
    kind: str
    ids: str | tuple[str, ...]  # "int" | a format with {i}, {h} (a hex digest) and {t} (one of three groups) | the N ids
    answers: str = "test.csv"
    sample: str = "sample_submission.csv"
    classes: tuple = (0, 1)
    sample_extra: tuple[str, ...] = ()  # columns of the sample beyond id and predictions
    answer_extra: tuple[str, ...] = ()  # columns only the answers have
    extra_values: tuple = (0, 1)  # what the answers-only columns hold, row by row in turn
    values: tuple[float, float] = (0.5, 30.0)  # the range of ``value`` answers (some grade.py check one)
    extra_by_column: bool = False  # answers-only column j holds extra_values[(i + j) % len] (else [i % len])
    answer_names: tuple[tuple[str, str], ...] = ()  # (submission column, its name in the answers) where they differ
    odd_values: tuple[tuple[str, str], ...] = ()  # (case, value): more cases, the noisy file with one cell changed
    answer_classes: tuple = ()  # what the answers hold for each of ``classes`` where a prediction reads otherwise
    box_rows: bool = False  # the answers hold a row per box of the "class conf x0 y0 x1 y1 ..." predictions (vinbigdata)
    records: bool = False  # the answers are examples in JSON lines, built by mlebench_qa_cases.py


RANZCR = (
    "ETT - Abnormal", "ETT - Borderline", "ETT - Normal", "NGT - Abnormal", "NGT - Borderline",
    "NGT - Incompletely Imaged", "NGT - Normal", "CVC - Abnormal", "CVC - Borderline",
    "CVC - Normal", "Swan Ganz Catheter Present",
)
JIGSAW = ("toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate")
JIGSAW_IDENTITIES = (
    "male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim", "black", "white",
    "psychiatric_or_mental_illness",
)
RLES = ("1 5 20 3", "10 8", "33 5 40 4", "3 2 30 12")  # run-length masks of small images, column-major
RLE_ODDITIES = (  # one cell of the noisy submission each: what mle-bench's rle_decode refuses, ignores or clips
    ("rle_unsorted", "20 3 5 2"), ("rle_overlap", "5 10 8 3"), ("rle_zero_length", "5 0"),
    ("rle_past_end", "60 10"), ("rle_odd_count", "5 3 20"), ("rle_three_starts", "5 3 20 2 30"),
    ("rle_float", "5.0 3"), ("rle_spaces", "   "),
    ("rle_dash", "-"), ("rle_empty", ""),
)
KUZUSHIJI_POINTS = ("U+003F 3 3 U+0041 22 22", "U+304A 50.5 60.5", "", "U+3042 5 5 U+3042 7 7")
KUZUSHIJI_BOXES = ("U+003F 1 1 10 10 U+0041 20 20 5 5", "U+304A 45 55 10 10", "", "U+3042 0 0 10 10")
KUZUSHIJI_ODDITIES = (
    ("points_double_space", "U+003F 3 3  U+0041 22 22"), ("points_malformed", "U+003F 3"),
    ("points_text_coordinate", "U+003F x 3"), ("points_on_edge", "U+003F 1 1"), ("points_exponent", "U+003F 3e0 3"),
    ("points_trailing_space", "U+003F 3 3 "), ("points_empty", ""),
)
SIIM_BOXES = (
    "negative 1 0 0 1 1", "opacity 0.9 10 10 50 50 opacity 0.6 60 60 90 90", "none 1 0 0 1 1", "typical 1 0 0 1 1",
    "opacity 0.8 12 8 52 48",
)
SIIM_ODDITIES = (
    ("boxes_short", "opacity 0.9 10 10 50"), ("boxes_text_confidence", "opacity high 10 10 50 50"),
    ("boxes_empty", ""), ("boxes_spaces", "  opacity 0.9 10 10 50 50  "),
    ("boxes_unknown_class", "pneumonia 0.9 10 10 50 50"), ("boxes_zero_area", "opacity 0.9 10 10 10 10"),
)
VINBIGDATA_BOXES = ("14 1.0 0 0 1 1", "0 1.0 100 120 300 340 3 1.0 50 60 150 200", "7 1.0 10 10 60 80",
                    "0 1.0 400 400 500 520")
VINBIGDATA_ODDITIES = (
    ("boxes_double_space", "7 1.0 10 10  60 80"), ("boxes_short", "7 1.0 10 10 60"), ("boxes_nan", "7 nan 10 10 60 80"),
    ("boxes_float_class", "7.9 1.0 10 10 60 80"), ("boxes_unknown_class", "9 1.0 10 10 60 80"), ("boxes_empty", ""),
    ("boxes_two_weak", "7 0.3 12 12 62 82 7 0.2 10 10 60 80"),
)
LYFT_OBJECTS = (  # a sample's "confidence x y z width length height yaw class" objects
    "1.0 10 10 1 2 4.5 1.6 0.3 car 1.0 20 5 1 2.5 10 3 -1.2 bus", "1.0 5 5 0.5 1.8 4.2 1.5 2.9 car",
    "1.0 30 30 2 3 12 4 0.0 truck 1.0 33 28 2 0.8 0.8 1.8 1.57 pedestrian", "1.0 12 15 1 2 4.5 1.6 0.35 car",
)
LYFT_ODDITIES = (  # the odd row's answer is the truck and the pedestrian
    ("objects_short", "1.0 30 30 2 3 12 4 0.0"), ("objects_negative_size_unscored", "1.0 5 5 0.5 -1.8 4.2 1.5 2.9 car"),
    ("objects_negative_size", "1.0 30 30 2 -3 12 4 0.0 truck"), ("objects_nan", "nan 30 30 2 3 12 4 0.0 truck"),
    ("objects_unknown_class", "0.9 30 30 2 3 12 4 0.0 tram"), ("objects_spaces", "   "),
    ("objects_double_space", "1.0 30 30 2 3 12 4 0.0  truck"), ("objects_empty", ""),
    ("objects_shifted", "0.7 30.5 30.4 2 3 12 4 0.05 truck 0.9 29 31 2 3 12 4 0.2 truck"),
)
UW_MADISON_IDS = tuple(  # 2 days x 4 slices x 3 organ classes: three rows per slice id
    f"case7_day{20 + i // 12}_slice_{(i // 3) % 4 + 1:04d}" for i in range(24)
)
RSNA_2022_IDS = tuple(  # 3 studies x their 8 targets, as mle-bench melts them (N rows)
    f"1.2.826.0.1.3680043.{10000 + s}_{v}" for s in range(3)
    for v in ("patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7")
)
_CLASSES = json.loads((Path(__file__).parent / "data" / "mlebench_classes.json").read_text())

COMPS: dict[str, Comp] = {
    "aerial-cactus-identification": Comp("id", ("has_cactus",), "proba", "{h}.jpg"),
    "detecting-insults-in-social-commentary": Comp(
        "Comment", ("Insult",), "proba", '"you, {h} {i}"', sample="sample_submission_null.csv",
        sample_extra=("Date",),
    ),
    "histopathologic-cancer-detection": Comp("id", ("label",), "proba", "{h}", answers="answers.csv"),
    "mlsp-2013-birds": Comp("Id", ("Probability",), "proba", "int", answers="answers.csv"),
    "random-acts-of-pizza": Comp("request_id", ("requester_received_pizza",), "proba", "t3_{h}",
                                 sample="sampleSubmission.csv"),
    "siim-isic-melanoma-classification": Comp("image_name", ("target",), "proba", "ISIC_{i:07d}"),
    "tabular-playground-series-may-2022": Comp("id", ("target",), "proba", "int"),
    "the-icml-2013-whale-challenge-right-whale-redux": Comp(
        "clip", ("probability",), "proba", "20090404_000000_{i}s_Test{i}.aif", sample="sampleSubmission.csv"
    ),
    "spaceship-titanic": Comp("PassengerId", ("Transported",), "label", "{i:04d}_01", classes=(False, True)),
    "tabular-playground-series-dec-2021": Comp("Id", ("Cover_Type",), "label", "int", classes=(1, 2, 3, 7)),
    "new-york-city-taxi-fare-prediction": Comp("key", ("fare_amount",), "value", "2015-01-27 13:08:{i:02d}.0000002"),
    "dogs-vs-cats-redux-kernels-edition": Comp("id", ("label",), "proba", "int", answers="answers.csv"),
    "spooky-author-identification": Comp("id", ("EAP", "HPL", "MWS"), "onehot", "id{i:05d}"),
    "nomad2018-predict-transparent-conductors": Comp("id", ("formation_energy_ev_natom", "bandgap_energy_ev"), "value", "int"),
    "aptos2019-blindness-detection": Comp("id_code", ("diagnosis",), "label", "{h}", classes=(0, 1, 2, 3, 4)),
    "plant-pathology-2020-fgvc7": Comp("image_id", ("healthy", "multiple_diseases", "rust", "scab"), "onehot", "Test_{i}"),
    "jigsaw-toxic-comment-classification-challenge": Comp("id", JIGSAW, "multilabel", "{h}"),
    "cassava-leaf-disease-classification": Comp("image_id", ("label",), "label", "{i}0015157.jpg", classes=(0, 1, 2, 3, 4)),
    "cdiscount-image-classification-challenge": Comp(
        "_id", ("category_id",), "label", "int", answers="answers.csv", classes=(1000010653, 1000010667, 1000004079)
    ),
    "iwildcam-2020-fgvc7": Comp("Id", ("Category",), "label", "{h}", answers="answers.csv", classes=(0, 3, 72, 571)),
    "ml2021spring-hw2": Comp("Id", ("ClassId",), "label", "int", answers="answers.csv", sample="sampleSubmission.csv",
                             classes=tuple(range(6))),
    "movie-review-sentiment-analysis-kernels-only": Comp(
        "PhraseId", ("Sentiment",), "label", "int", answers="answers.csv", sample="sampleSubmission.csv",
        classes=(0, 1, 2, 3, 4)
    ),
    "rsna-miccai-brain-tumor-radiogenomic-classification": Comp("BraTS21ID", ("MGMT_value",), "proba", "int"),
    "seti-breakthrough-listen": Comp("id", ("target",), "proba", "{h}"),
    "tensorflow-speech-recognition-challenge": Comp(
        "fname", ("label",), "label", "clip_{h}.wav", classes=("yes", "no", "unknown", "silence")
    ),
    "dog-breed-identification": Comp("id", tuple(_CLASSES["dog-breed-identification"]), "onehot", "{h}"),
    "leaf-classification": Comp("id", tuple(_CLASSES["leaf-classification"]), "onehot", "int"),
    "denoising-dirty-documents": Comp("id", ("value",), "value", "{i}_1_1", answers="answers.csv",
                                      sample="sampleSubmission.csv"),
    "ranzcr-clip-catheter-line-classification": Comp(
        "StudyInstanceUID", RANZCR, "multilabel", "1.2.826.0.1.3680043.8.498.{i}", answer_extra=("PatientID",)
    ),
    "paddy-disease-classification": Comp(
        "image_id", ("label",), "label", "{i:06d}.jpg", classes=("bacterial_leaf_blight", "blast", "hispa", "normal")
    ),
    "inaturalist-2019-fgvc6": Comp("id", ("predicted",), "label", "int", answers="answers.csv",
                                   sample="kaggle_sample_submission.csv", classes=(5, 17, 230, 1009)),
    **{
        name: Comp("Id", ("Predicted",), "label", "int", answers="answers.csv", classes=(0, 12, 345, 15500))
        for name in ("herbarium-2020-fgvc7", "herbarium-2021-fgvc8", "herbarium-2022-fgvc9")
    },
    "iwildcam-2019-fgvc6": Comp("Id", ("Category",), "label", "{h}", answers="answers.csv", classes=(0, 1, 10, 22)),
    "plant-seedlings-classification": Comp(
        "file", ("species",), "label", "{h}.png", answers="answers.csv",
        classes=("Black-grass", "Charlock", "Maize", "Sugar beet"),
    ),
    "petfinder-pawpularity-score": Comp("Id", ("Pawpularity",), "value", "{h}", values=(5.0, 80.0)),
    "playground-series-s3e18": Comp("id", ("EC1", "EC2"), "multilabel", "int", answer_extra=("EC3", "EC4", "EC5", "EC6")),
    "predict-volcanic-eruptions-ingv-oe": Comp("segment_id", ("time_to_eruption",), "value", "int", values=(1e5, 5e7)),
    "us-patent-phrase-to-phrase-matching": Comp("id", ("score",), "value", "{h}", values=(0.0, 1.0)),
    "statoil-iceberg-classifier-challenge": Comp("id", ("is_iceberg",), "proba", "{h}"),
    "learning-agency-lab-automated-essay-scoring-2": Comp(
        "essay_id", ("score",), "label", "{h}", answers="answers.csv", classes=(1, 2, 3, 4, 5, 6)
    ),
    "nfl-player-contact-detection": Comp("contact_id", ("contact",), "label", "58168_003392_{i}_38590_G", classes=(0, 1)),
    "lmsys-chatbot-arena": Comp(
        "id", ("winner_model_a", "winner_model_b", "winner_tie"), "onehot", "int", answers="answers.csv"
    ),    "ventilator-pressure-prediction": Comp(
        "id", ("pressure",), "value", "int", answer_extra=("u_out",), values=(5.0, 40.0)
    ),
    "invasive-species-monitoring": Comp("name", ("invasive",), "proba", "int", answers="answers.csv"),
    "google-quest-challenge": Comp("qa_id", tuple(_CLASSES["google-quest-challenge"]), "value", "int", values=(0.0, 1.0)),
    "plant-pathology-2021-fgvc8": Comp(
        "image", ("labels",), "label", "{h}.jpg", answers="answers.csv",
        classes=("healthy", "scab frog_eye_leaf_spot", "rust", "complex powdery_mildew"),
    ),
    "imet-2020-fgvc7": Comp("id", ("attribute_ids",), "label", "{h}", answers="answers.csv",
                            classes=("13 405", "896", "1092 13 51", "51")),
    "whale-categorization-playground": Comp(
        "Image", ("Id",), "label", "{h}.jpg", classes=("new_whale", "w_1287fbc", "w_98baff9", "w_7554f44 new_whale")
    ),
    "hotel-id-2021-fgvc8": Comp("image", ("hotel_id",), "label", "{h}.jpg", classes=(11, 36363, 7, 2805)),
    "h-and-m-personalized-fashion-recommendations": Comp(
        "customer_id", ("prediction",), "label", "{h}", answers="answers.csv",
        classes=("0706016001 0372860001", "0610776002", "0759871002 0464297007 0372860002", "0399223001"),
    ),
    "facebook-recruiting-iii-keyword-extraction": Comp(
        "Id", ("Tags",), "label", "int", classes=("php image-processing", "c#", "javascript jquery html", "python")
    ),
    "alaska2-image-steganalysis": Comp("Id", ("Label",), "proba", "{i:04d}.jpg"),
    "rsna-breast-cancer-detection": Comp("prediction_id", ("cancer",), "proba", "{i}_L", answers="answers.csv"),
    "hms-harmful-brain-activity-classification": Comp(
        "eeg_id", ("seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"), "onehot", "int"
    ),
    "freesound-audio-tagging-2019": Comp("fname", tuple(_CLASSES["freesound-audio-tagging-2019"]), "multilabel", "{h}.wav"),
    "osic-pulmonary-fibrosis-progression": Comp(
        "Patient_Week", ("FVC", "Confidence"), "value", "ID00{h}_{i}", answer_extra=("Patient",), values=(1500.0, 4000.0)
    ),
    "icecube-neutrinos-in-deep-ice": Comp("event_id", ("azimuth", "zenith"), "value", "int", values=(0.1, 3.0)),
    "stanford-covid-vaccine": Comp(
        "id_seqpos", ("reactivity", "deg_Mg_pH10", "deg_Mg_50C", "deg_pH10", "deg_50C"), "value", "id_{h}_{i}",
        answer_extra=("keep",), extra_values=(True, True, False),
    ),
    "smartphone-decimeter-2022": Comp(
        "tripId", ("LatitudeDegrees", "LongitudeDegrees", "UnixTimeMillis"), "value", "2021-08-24-US-SVL-{t}/GooglePixel5",
        values=(30.0, 40.0),
    ),
    "champs-scalar-coupling": Comp(
        "id", ("scalar_coupling_constant",), "value", "int", answers="answers.csv", answer_extra=("type",)
    ),
    "text-normalization-challenge-english-language": Comp(
        "id", ("after",), "label", "{i}_0", answers="answers.csv", classes=("the", "one hundred", "doctor", "sil")
    ),
    "text-normalization-challenge-russian-language": Comp(
        "id", ("after",), "label", "{i}_0", answers="answers.csv", classes=("и", "сто", "доктор", "sil")
    ),
    "tweet-sentiment-extraction": Comp(
        "textID", ("selected_text",), "label", "{h}", classes=("good", "I don't care", "so sad today", "it was, yes")
    ),
    "chaii-hindi-and-tamil-question-answering": Comp(
        "id", ("PredictionString",), "label", "{h}", classes=("१९४७", "चेन्नई नगर", "Kumar Sangakkara", "இந்தியா")
    ),
    "billion-word-imputation": Comp(
        "id", ("sentence",), "label", "int", classes=("He was a man .", "It rained", "Yes , she said it .", "no")
    ),
    "bms-molecular-translation": Comp(
        "image_id", ("InChI",), "label", "{h}",
        classes=("InChI=1S/C13H20OS/c1-9(2)8-15", "InChI=1S/C21H30O4/c1-12", "InChI=1S/CH4/h1H4", "InChI=1S/H2O"),
    ),
    "multi-modal-gesture-recognition": Comp(
        "Id", ("Sequence",), "label", "int", sample="randomPredictions.csv", classes=("2 12 5", "7", "11 3", "1 20 4 9")
    ),
    "AI4Code": Comp(
        "id", ("cell_order",), "label", "{h}", answers="test_orders.csv",
        classes=("a1 b2 c3 d4", "b2 a1 c3 d4", "d4 c3 b2 a1", "a1 c3 b2 d4"),
    ),
    "jigsaw-unintended-bias-in-toxicity-classification": Comp(
        "id", ("prediction",), "proba", "int", answer_extra=JIGSAW_IDENTITIES, extra_values=(0.8, 0.1, 0.0),
        extra_by_column=True, answer_names=(("prediction", "toxicity"),),
    ),
    "rsna-2022-cervical-spine-fracture-detection": Comp("row_id", ("fractured",), "proba", RSNA_2022_IDS,
                                                       answers="answers.csv"),
    "hubmap-kidney-segmentation": Comp(
        "id", ("predicted",), "label", "{h}", classes=RLES, answer_names=(("predicted", "encoding"),),
        answer_extra=("width_pixels", "height_pixels"), extra_values=(8,), odd_values=RLE_ODDITIES,
    ),
    "google-research-identify-contrails-reduce-global-warming": Comp(
        "record_id", ("encoded_pixels",), "label", "int", answers="answers.csv", classes=(*RLES[:3], "-"),
        answer_extra=("height", "width"), extra_values=(8,), odd_values=RLE_ODDITIES,
    ),
    "vesuvius-challenge-ink-detection": Comp(
        "Id", ("Predicted",), "label", "{h}", answers="inklabels_rle.csv", classes=RLES,
        answer_extra=("width", "height"), extra_values=(8, 6), extra_by_column=True, odd_values=RLE_ODDITIES,
    ),
    "uw-madison-gi-tract-image-segmentation": Comp(
        "id", ("predicted",), "label", UW_MADISON_IDS, classes=(*RLES, "", ""), sample_extra=("class",),
        answer_extra=("image_height", "image_width"), extra_values=(8,), odd_values=RLE_ODDITIES,
    ),
    "tgs-salt-identification-challenge": Comp(
        "id", ("rle_mask",), "label", "{h}", classes=(*RLES[:2], "1 9000 9500 700", *RLES[2:], ""),
        odd_values=RLE_ODDITIES,  # the third row's answer a mask of most of the image, the odd cells' row
    ),
    "kuzushiji-recognition": Comp(
        "image_id", ("labels",), "label", "umgy{i:03d}-{h}", classes=KUZUSHIJI_POINTS, answer_classes=KUZUSHIJI_BOXES,
        odd_values=KUZUSHIJI_ODDITIES,
    ),
    "vinbigdata-chest-xray-abnormalities-detection": Comp(
        "image_id", ("PredictionString",), "label", "{h}", answers="answers.csv", classes=VINBIGDATA_BOXES,
        box_rows=True, odd_values=VINBIGDATA_ODDITIES,
    ),
    "3d-object-detection-for-autonomous-vehicles": Comp(
        "Id", ("PredictionString",), "label", "{h}{h}", classes=LYFT_OBJECTS, odd_values=LYFT_ODDITIES,
    ),
    "siim-covid19-detection": Comp(
        "id", ("PredictionString",), "label", "{h}_study", classes=SIIM_BOXES, odd_values=SIIM_ODDITIES,
    ),
    QA.COMP: Comp(
        "example_id", ("PredictionString",), "label", "{h}", answers="test.jsonl", odd_values=QA.ODDITIES, records=True,
    ),
}


def _rng(name: str, salt: str = "") -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256((name + salt).encode()).hexdigest()[:8], 16))


def _ids(name: str, comp: Comp) -> list:
    if comp.ids == "int":
        return [int(x) for x in 1000 + 7 * np.arange(N)]
    if isinstance(comp.ids, tuple):
        return list(comp.ids)
    digest = [hashlib.sha256(f"{name}{i}".encode()).hexdigest()[:12] for i in range(N)]
    return [comp.ids.format(i=i, h=digest[i], t=i % 3) for i in range(N)]  # {t}: three groups (trips)


def answers(name: str) -> pd.DataFrame:
    """The answers file: id, the prediction columns (named as the answers name them) and the
    answers-only columns."""
    comp, frame = COMPS[name], _answers(name)
    if comp.answer_classes:
        truth = dict(zip(comp.classes, comp.answer_classes))
        frame[comp.columns[0]] = [truth[c] for c in frame[comp.columns[0]]]
    frame = frame.rename(columns=dict(comp.answer_names))
    return _box_rows(frame, comp) if comp.box_rows else frame


def _box_rows(frame: pd.DataFrame, comp: Comp) -> pd.DataFrame:
    """vinbigdata's answers: a row per box (image_id, class_id, class_name, rad_id, x_min, y_min, x_max, y_max)."""
    rows = []
    for image, boxes in zip(frame[comp.id_column], frame[comp.columns[0]]):
        fields = boxes.split()
        for k in range(0, len(fields), 6):
            c, _, *xy = fields[k : k + 6]
            rows.append({comp.id_column: image, "class_id": int(c), "class_name": f"finding {c}", "rad_id": "R9",
                         **dict(zip(("x_min", "y_min", "x_max", "y_max"), map(float, xy)))})
    return pd.DataFrame(rows)


def _answers(name: str) -> pd.DataFrame:
    """The answers with the prediction columns named as in a submission."""
    comp, rng = COMPS[name], _rng(name)
    out: dict = {comp.id_column: _ids(name, comp)}
    if comp.kind == "proba":
        out[comp.columns[0]] = np.arange(N) % 2
    elif comp.kind == "label":
        out[comp.columns[0]] = [comp.classes[i % len(comp.classes)] for i in range(N)]
    elif comp.kind == "value":
        for c in comp.columns:
            out[c] = rng.uniform(*comp.values, N).round(4)
    elif comp.kind == "onehot":
        hot = np.arange(N) % len(comp.columns)
        for j, c in enumerate(comp.columns):
            out[c] = (hot == j).astype(int)
    else:  # multilabel: both classes in every column; jigsaw's unscored rows are -1 everywhere
        for j, c in enumerate(comp.columns):
            out[c] = ((np.arange(N) + j) % 3 == 0).astype(int)
        if name.startswith("jigsaw"):
            for c in comp.columns:
                out[c][:3] = -1
    for c in comp.sample_extra:
        out[c] = [f"2012{i:04d}Z" for i in range(N)]
    for j, c in enumerate(comp.answer_extra):  # ventilator's u_out, osic's Patient, champs' type, stanford's keep
        shift = j if comp.extra_by_column else 0
        out[c] = [comp.extra_values[(i + shift) % len(comp.extra_values)] for i in range(N)]
    frame = pd.DataFrame(out)
    if comp.sample_extra:  # detecting-insults: Insult, Date, Comment
        frame = frame[[*comp.columns, *comp.sample_extra, comp.id_column, *comp.answer_extra]]
    return frame


def sample(name: str) -> pd.DataFrame:
    if COMPS[name].records:
        return QA.sample()
    comp, ans = COMPS[name], _answers(name)
    columns = [c for c in ans.columns if c not in comp.answer_extra]
    out = ans[columns].copy()
    for c in comp.columns:
        out[c] = comp.classes[0] if comp.kind == "label" else 0
    return out


def _predictions(name: str, noise: bool) -> pd.DataFrame:
    """A submission: the answers, or a noisy guess at them, in the sample's columns."""
    if COMPS[name].records:
        return QA.predictions(noise)
    comp, ans, rng = COMPS[name], _answers(name), _rng(name, "noise")
    sub = sample(name)
    for c in comp.columns:
        truth = ans[c].to_numpy()
        if comp.kind == "proba" or comp.kind == "multilabel":
            p = np.clip(truth, 0, 1).astype(float)
            sub[c] = (np.abs(p - rng.uniform(0, 0.45, N)) if noise else p).round(6)
        elif comp.kind == "label":
            flip = rng.random(N) < 0.3
            sub[c] = [comp.classes[(comp.classes.index(t) + 1) % len(comp.classes)] if f and noise else t
                      for t, f in zip(truth, flip)]
        elif comp.kind == "value":
            sub[c] = (truth * rng.uniform(0.8, 1.2, N)).round(4) if noise else truth
    if comp.kind == "onehot":
        truth = ans[list(comp.columns)].to_numpy(dtype=float)
        p = truth + (rng.uniform(0.05, 0.6, truth.shape) if noise else 0.0)
        p = (p / p.sum(axis=1, keepdims=True)).round(6)
        p[:, -1] = (1.0 - p[:, :-1].sum(axis=1)).round(6)
        for j, c in enumerate(comp.columns):
            sub[c] = p[:, j]
    return sub


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def _first_value_cell(sub: pd.DataFrame, comp: Comp, value) -> pd.DataFrame:
    out = sub.astype({comp.columns[0]: object})
    out.loc[out.index[2], comp.columns[0]] = value
    return out


def cases(name: str) -> dict[str, bytes]:
    """Every case of :data:`CASES` for competition ``name``, and its ``odd_values`` cases, as CSV bytes."""
    comp, noisy = COMPS[name], _predictions(name, True)
    out = edge_cases(_predictions(name, False), noisy, comp, _rng(name, "cases"))
    for case, value in comp.odd_values:
        out[case] = _csv(_first_value_cell(noisy, comp, value))
    if comp.records:
        out.update(QA.file_cases(noisy))
    return out


def case_names(name: str) -> set[str]:
    """The names of :func:`cases` of competition ``name``."""
    comp = COMPS[name]
    return {*CASES, *(case for case, _ in comp.odd_values), *(QA.FILE_CASES if comp.records else ())}


def edge_cases(good: pd.DataFrame, noisy: pd.DataFrame, comp: Comp, rng: np.random.Generator) -> dict[str, bytes]:
    """Every case of :data:`CASES` built from a perfect and a noisy submission of ``comp``'s shape."""
    idc, cols, n = comp.id_column, list(comp.columns), len(noisy)
    out: dict[str, pd.DataFrame | bytes] = {"perfect": good, "noisy": noisy}
    out["shuffled"] = noisy.iloc[rng.permutation(n)]
    rest = [c for c in noisy.columns if c != idc]
    out["permuted_columns"] = noisy[[*rest[::-1], idc]]
    out["extra_column"] = noisy.assign(extra=1.0)
    out["missing_column"] = noisy.drop(columns=[cols[0]])
    out["missing_id"] = noisy.drop(columns=[idc])
    out["renamed_id"] = noisy.rename(columns={idc: "ID_"})
    dup = noisy.copy()
    dup.loc[dup.index[1], idc] = dup.loc[dup.index[0], idc]
    out["duplicate_id"] = dup
    unknown = noisy.astype({idc: object})
    unknown.loc[unknown.index[0], idc] = 999999 if comp.ids == "int" else "unknown-id"
    out["unknown_id"] = unknown
    extra = noisy.iloc[[-1]].astype({idc: object})
    extra[idc] = 999999 if comp.ids == "int" else "extra-id"
    out["extra_row"] = pd.concat([noisy, extra], ignore_index=True)
    out["missing_row"] = noisy.iloc[:-1]
    floats = noisy.copy()
    floats[idc] = [f"{v}.0" for v in floats[idc]]
    out["float_ids"] = floats
    out["nan"] = _first_value_cell(noisy, comp, np.nan)
    out["text_in_prediction"] = _first_value_cell(noisy, comp, "abc")
    cont = noisy.copy()
    if comp.kind == "label":
        cont[cols[0]] = rng.uniform(0, 4, n).round(3)
    else:
        for c in cols:
            cont[c] = (cont[c] * 0.97 + 0.01).round(6)
    out["continuous"] = cont
    hard = noisy.copy()
    for c in cols:
        if comp.kind != "label":
            hard[c] = (hard[c] >= hard[c].median()).astype(int)
    out["hard_labels"] = hard
    scaled = noisy.copy()
    for c in cols:
        if comp.kind != "label":
            scaled[c] = (scaled[c] * 0.5).round(6)
    out["unnormalised"] = scaled
    high = noisy.copy()
    for c in cols[:1]:
        high[c] = high[c] + 1 if comp.kind != "label" else 9
    out["out_of_range"] = high
    neg = noisy.copy()
    for c in cols[:1]:
        neg[c] = -neg[c] if comp.kind != "label" else -1
    out["negative"] = neg
    out["wide"] = noisy.assign(**{f"extra_{k}": 0.0 for k in range(12)})
    out["header_only"] = noisy.iloc[:0]
    out["repeated_column"] = pd.concat([noisy, noisy[[cols[0]]]], axis=1)  # the name twice
    assert set(out) == set(CASES) - {"short_row"}
    data = {k: _csv(v) for k, v in out.items()}
    rows = list(csv.reader(io.StringIO(_csv(noisy).decode())))
    rows[-1] = rows[-1][:-1]  # the last row one field short
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    data["short_row"] = buf.getvalue().encode()
    return data


def build(root: Path, names: list[str] | None = None) -> Path:
    """Prepared mle-bench folders for ``names`` (default: all) under ``root``. Returns ``root``."""
    root = Path(root)
    for name in names or COMPS:
        comp = COMPS[name]
        public, private = root / name / "prepared" / "public", root / name / "prepared" / "private"
        public.mkdir(parents=True, exist_ok=True)
        private.mkdir(parents=True, exist_ok=True)
        dataset = {
            "answers": f"{name}/prepared/private/{comp.answers}",
            "sample_submission": f"{name}/prepared/public/{comp.sample}",
        }
        if comp.records:
            QA.write(public, private)
            dataset["gold_submission"] = f"{name}/prepared/private/gold_submission.csv"
        else:
            sample(name).to_csv(public / comp.sample, index=False)
            answers(name).to_csv(private / comp.answers, index=False)
        (public / "description.md").write_text(f"# {name}\n\nSynthetic copy for the differential test.\n")
        config = {"id": name, "dataset": dataset, "grader": {"grade_fn": f"mlebench.competitions.{name}.grade:grade"}}
        (root / name / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root
