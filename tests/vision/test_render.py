"""Tests of the synthetic card and table renderer (vision.lab.render): seeded determinism,
every card in every deck style, annotations that agree with the pixels, French
indices (R D V) against English ones (K Q J), and negatives never marked belote."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.lab import render
from vision.lab.render import (
    BELOTE_CODES,
    CARD_H,
    CARD_W,
    NEGATIVE_CODES,
    STYLES,
    RenderError,
    TableScene,
    english_styles,
    french_styles,
    get_style,
    glyph,
    hand_occluder,
    render_card,
    render_scene,
)


def test_same_seed_gives_same_pixels_and_annotations():
    f1, a1 = render_scene(np.random.default_rng(11), n_cards=6)
    f2, a2 = render_scene(np.random.default_rng(11), n_cards=6)
    f3, _ = render_scene(np.random.default_rng(12), n_cards=6)
    assert np.array_equal(f1, f2)
    assert a1 == a2
    assert not np.array_equal(f1, f3)


def test_every_code_renders_in_every_style():
    rng = np.random.default_rng(0)
    for style in STYLES:
        faces = {}
        for code in BELOTE_CODES + NEGATIVE_CODES:
            face = render_card(code, style, rng)
            assert face.shape == (CARD_H, CARD_W, 3) and face.dtype == np.uint8
            # Something is printed on the paper: a face is not blank.
            assert face.std() > 10, (style.name, code)
            faces[code] = face
        # Cards of the same deck differ from one another.
        assert not np.array_equal(faces["7S"], faces["8S"])
        assert not np.array_equal(faces["KH"], faces["QH"])


def test_styles_are_split_into_french_and_english():
    assert french_styles() and english_styles()
    assert {s.name for s in french_styles()} | {s.name for s in english_styles()} == {
        s.name for s in STYLES}
    assert len({s.font for s in STYLES}) >= 5


def _rank_ink(face: np.ndarray, style) -> np.ndarray:
    """The ink of the top-left rank index, as a tight binary mask."""
    x1, _, x2, _ = style.index_box()
    top = style.index_top
    # Stop short of the court frame's left line (x = 48), which is not index ink.
    crop = face[top - 2:top + style.index_height + 2, x1:min(x2, 45)]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    ink = (grey < 150).astype(np.uint8) * 255
    ys, xs = np.nonzero(ink)
    return ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def iou(a: np.ndarray, b: np.ndarray) -> float:
    b = cv2.resize(b, (a.shape[1], a.shape[0]), interpolation=cv2.INTER_AREA)
    a, b = a > 127, b > 127
    return float((a & b).sum() / max((a | b).sum(), 1))


@pytest.mark.parametrize("rank,french,english", [("K", "R", "K"), ("Q", "D", "Q"),
                                                  ("J", "V", "J")])
def test_french_decks_print_r_d_v_and_english_decks_k_q_j(rank, french, english):
    rng = np.random.default_rng(3)
    for style in STYLES:
        ink = _rank_ink(render_card(rank + "S", style, rng), style)
        want, other = (french, english) if style.indices == "french" else (english, french)
        assert iou(ink, glyph(style.font, want)) > iou(ink, glyph(style.font, other)) + 0.1, (
            style.name, rank)


def test_index_ink_lies_inside_the_styles_index_box_at_both_corners():
    rng = np.random.default_rng(2)
    for style in STYLES:
        x1, y1, x2, y2 = style.index_box()
        for code in ("TH", "7S", "9D"):
            face = render_card(code, style, rng)
            for corner in (face, face[::-1, ::-1]):
                # Above y = 100 and left of the pips' column only the index is printed,
                # so any ink there outside the box would be a misplaced index.
                right = min(46, 72 - round(0.6 * style.pip_height))
                ink = cv2.cvtColor(corner[:100, :right], cv2.COLOR_BGR2GRAY) < 170
                inside = np.zeros_like(ink)
                inside[y1:y2, x1:min(x2, right)] = True
                assert ink[inside].sum() > 100, (style.name, code)
                assert ink[~inside].sum() == 0, (style.name, code)


def test_ten_is_printed_as_10():
    style = STYLES[0]
    ink = _rank_ink(render_card("TD", style, np.random.default_rng(0)), style)
    assert iou(ink, glyph(style.font, "10")) > 0.6


def test_scene_annotations_agree_with_pixels():
    rng = np.random.default_rng(5)
    table = TableScene(rng, background="felt", light=0.5)
    codes = ["7H", "AS", "KD", "TC", "QH", "JS", "9D", "8C"]
    for k, code in enumerate(codes):
        table.place(code, (160 + 140 * k, 200 + 300 * (k % 2)), 25 * k, STYLES[k % len(STYLES)])
    frame = table.draw()
    notes = table.annotations()
    assert [a["code"] for a in notes] == codes
    for a in notes:
        quad = np.array(a["quad"], np.float32)
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        inside = mask.astype(bool)
        # Where a card lies, the frame is not the bare table.
        diff = np.abs(frame.astype(int) - table.background.astype(int)).sum(2)
        assert diff[inside].mean() > 40, a["code"]
        assert a["belote"] is True
        assert 0 < a["visible_fraction"] <= 1
        # The quad runs clockwise (positive area in image coordinates, y down).
        x, y = quad[:, 0], quad[:, 1]
        assert 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0
        assert a["index_boxes"], a["code"]
        for x1, y1, x2, y2 in a["index_boxes"]:
            assert x1 < x2 and y1 < y2
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            assert cv2.pointPolygonTest(quad, centre, False) > 0
    # The last card placed is on top and fully visible; nothing outside quads changed.
    assert notes[-1]["visible_fraction"] > 0.97
    outside = np.ones(frame.shape[:2], bool)
    for a in notes:
        cv2.fillConvexPoly(outside.view(np.uint8), np.round(np.array(a["quad"])).astype(
            np.int32), 0)
    far = cv2.erode(outside.astype(np.uint8), np.ones((21, 21), np.uint8)).astype(bool)
    assert np.array_equal(frame[far], table.background[far])


def test_hand_hides_cards_and_lowers_visible_fraction():
    rng = np.random.default_rng(8)
    table = TableScene(rng, background="wood")
    table.place("AH", (640, 360), 0)
    hand = hand_occluder(rng, table.size, target=(640, 360), edge="S")
    alone = table.annotations()[0]["visible_fraction"]
    covered = table.annotations([hand])[0]["visible_fraction"]
    assert alone > 0.97 and covered < alone - 0.05
    assert not np.array_equal(table.draw(), table.draw([hand]))


def test_render_scene_index_boxes_lie_in_quads_and_negatives_are_not_belote():
    seen_negative = False
    for seed in range(4):
        frame, notes = render_scene(np.random.default_rng(seed), n_cards=8)
        assert frame.shape == (720, 1280, 3)
        assert sum(a["belote"] for a in notes) == 8
        for a in notes:
            assert a["belote"] == (a["code"] in BELOTE_CODES)
            if not a["belote"]:
                seen_negative = True
            quad = np.array(a["quad"], np.float32)
            for x1, y1, x2, y2 in a["index_boxes"]:
                assert cv2.pointPolygonTest(quad, ((x1 + x2) / 2, (y1 + y2) / 2), False) >= 0
    assert seen_negative


def test_french_and_english_scenes_use_the_asked_style():
    _, notes = render_scene(np.random.default_rng(1), n_cards=5, style="fr-grimaud",
                            negatives=False)
    assert {a["style"] for a in notes} == {"fr-grimaud"}


def test_bad_input_says_what_and_where():
    rng = np.random.default_rng(0)
    with pytest.raises(RenderError, match="card code '1H'"):
        render_card("1H", "fr-grimaud", rng)
    with pytest.raises(RenderError, match="style 'nope'"):
        render_card("7H", "nope", rng)
    table = TableScene(rng)
    with pytest.raises(RenderError, match="remove 'AS'"):
        table.remove("AS")
    assert render.is_belote("JS") and not render.is_belote("BACK")


def test_table_scene_places_removes_and_redraws_the_same_frame():
    table = TableScene(np.random.default_rng(21), background="cloth")
    empty = table.draw()
    first = table.place("JH", (400, 360), 10, "fr-ducale")
    second = table.place("JH", (800, 360), -20, "en-mono")
    assert first != second
    frame = table.draw()
    assert np.array_equal(frame, table.draw())  # faces and warps are cached
    table.remove(first)
    notes = table.annotations()
    assert [(a["code"], a["style"], a["id"]) for a in notes] == [("JH", "en-mono", second)]
    table.remove("JH")
    assert np.array_equal(table.draw(), empty)
    # Sensor noise is drawn from the rng passed to draw, so it repeats with the seed.
    table.place("9C", (640, 360), 45)
    noisy = table.draw(rng=np.random.default_rng(3))
    assert np.array_equal(noisy, table.draw(rng=np.random.default_rng(3)))
    assert not np.array_equal(noisy, table.draw())


def test_clutter_is_annotated_as_not_belote():
    table = TableScene(np.random.default_rng(4), background="white")
    table.place("AC", (640, 360), 0)
    for k, kind in enumerate(render.CLUTTER_KINDS):
        table.place_clutter(kind, (200 + 280 * k, 560), 30)
    notes = table.annotations()
    kinds = {a["code"]: a for a in notes}
    assert set(kinds) == {"AC", *render.CLUTTER_KINDS}
    for kind in render.CLUTTER_KINDS:
        assert kinds[kind]["belote"] is False and kinds[kind]["index_boxes"] == []
    # Clutter lies under the cards that were already down.
    assert notes[-1]["code"] == "AC"


def test_example_frames_for_a_person_to_look_at(artifacts):
    for seed, background in enumerate(("felt", "wood", "cloth", "white", "stone")):
        frame, notes = render_scene(np.random.default_rng(100 + seed), background=background)
        shown = frame.copy()
        for a in notes:
            colour = (0, 255, 0) if a["belote"] else (0, 0, 255)
            cv2.polylines(shown, [np.round(np.array(a["quad"])).astype(np.int32)], True,
                          colour, 2)
            for x1, y1, x2, y2 in a["index_boxes"]:
                cv2.rectangle(shown, (int(x1), int(y1)), (int(x2), int(y2)), (255, 0, 0), 2)
        assert cv2.imwrite(str(artifacts / f"render_{background}.png"), frame)
        assert cv2.imwrite(str(artifacts / f"render_{background}_annotated.png"), shown)


def test_renderer_runs_with_only_numpy_and_opencv():
    """The virtual table runs on the Pi without Pillow, torch, onnxruntime or Flask."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in {'PIL', 'torch', 'onnxruntime', 'flask', 'onnx'}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numpy as np\n"
        "from vision.lab.render import render_scene, TableScene, hand_occluder\n"
        "frame, notes = render_scene(np.random.default_rng(0), n_cards=3)\n"
        "t = TableScene(np.random.default_rng(1)); t.place('TS', (640, 360), 5)\n"
        "t.draw([hand_occluder(np.random.default_rng(2))])\n"
        "print(len(notes) >= 3, frame.shape)\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True (720, 1280, 3)"


def test_a_card_is_readable_until_a_card_on_top_hides_its_suit_signs():
    table = TableScene(np.random.default_rng(3), background="felt", card_height=300)
    table.place("KS", (640, 360), 0, "en-bicycle")
    assert table.annotations()[0]["readable"] is True
    # A second card over the lower part of both indices' suit signs and the lower
    # index: only the top-left rank is left to see.
    style = get_style("en-bicycle")
    scale = 300 / CARD_H
    rank_bottom = 360 - 150 + (style.index_top + style.index_height + 3) * scale
    table.place("7H", (640, rank_bottom + 150 + 2), 0, "en-bicycle")
    ks, top = table.annotations()
    assert ks["readable"] is False and top["readable"] is True
    assert len(ks["index_readable"]) == len(ks["index_boxes"])
    assert top["index_readable"] == [True, True]


@pytest.mark.slow
def test_a_hand_over_half_an_index_leaves_its_box_but_makes_it_unreadable():
    # The renderer's labels count an index seen at 60 %; its suit sign may be gone.
    found = []
    for seed in range(40):
        _, notes = render_scene(np.random.default_rng(seed), n_cards=9, hands=2, overlap=0.8)
        found += [a for a in notes if a["belote"]]
    assert all(a["readable"] for a in found if a["visible_fraction"] > 0.995)
    hidden = [a for a in found if a["index_boxes"] and not a["readable"]]
    assert hidden and all(a["visible_fraction"] < 0.99 for a in hidden)


@pytest.mark.slow
def test_index_shown_is_how_much_of_the_rank_and_suit_is_seen():
    table = TableScene(np.random.default_rng(3), background="felt", card_height=300)
    table.place("KS", (640, 360), 0, "en-bicycle")
    # A lone card shows both indices whole (up to the pixels' edges).
    assert all(s >= 0.99 for s in table.annotations()[0]["index_shown"])
    assert len(table.annotations()[0]["index_shown"]) == 2
    style = get_style("en-bicycle")
    scale = 300 / CARD_H
    rank_bottom = 360 - 150 + (style.index_top + style.index_height + 3) * scale
    table.place("7H", (640, rank_bottom + 150 + 2), 0, "en-bicycle")
    ks = table.annotations()[0]
    # The top-left index keeps its rank but its suit sign is covered: it shows little.
    assert len(ks["index_shown"]) == len(ks["index_boxes"]) >= 1
    assert max(ks["index_shown"]) < render.READABLE_SHARE
    # Over many scenes, an index is readable exactly when it shows enough.
    for seed in range(15):
        _, notes = render_scene(np.random.default_rng(seed), n_cards=9, hands=2, overlap=0.8)
        for a in notes:
            assert len(a["index_shown"]) == len(a["index_readable"])
            for shown, readable in zip(a["index_shown"], a["index_readable"], strict=True):
                assert 0.0 <= shown <= 1.0
                assert readable == (shown >= render.READABLE_SHARE)


def test_degrade_says_which_camera_faults_it_gave_without_changing_the_frame():
    frame = render_scene(np.random.default_rng(5), n_cards=3, degrade_strength=0.0)[0]
    kinds = set()
    for seed in range(30):
        faults: dict = {}
        told = render.degrade(frame, np.random.default_rng(seed), 1.0, faults)
        untold = render.degrade(frame, np.random.default_rng(seed), 1.0)
        assert np.array_equal(told, untold)
        assert set(faults) == {"blur", "blur_px", "noise", "grey", "jpeg"}
        kinds.add(faults["blur"])
        assert (faults["blur_px"] == 0.0) == (faults["blur"] == "none")
        if faults["blur"] == "motion":
            assert faults["blur_px"] in range(3, 9)
        assert faults["jpeg"] is None or 40 <= faults["jpeg"] <= 95
        assert faults["noise"] == 0.0 or 0.5 < faults["noise"] <= 7.0  # none under 0.5
    assert kinds == {"none", "focus", "motion"}
    # render_scene passes the dict on: the same scene, with its faults told.
    faults = {}
    a = render_scene(np.random.default_rng(8), n_cards=4, faults=faults)[0]
    assert np.array_equal(a, render_scene(np.random.default_rng(8), n_cards=4)[0])
    assert faults["blur"] in {"none", "focus", "motion"}


def test_every_glyph_atlas_holds_every_glyph():
    """The atlases the renderer draws indices from (``vision.lab.make_assets``): each
    listed font has a non-empty cell for every glyph."""
    meta = render._atlas_meta()
    assert len(meta["fonts"]) >= 20
    for font in meta["fonts"]:
        atlas = render._atlas(font)
        cell = meta["cell"]
        assert atlas.shape[1] == cell * len(meta["glyphs"])
        for i, name in enumerate(meta["glyphs"]):
            assert atlas[:, i * cell:(i + 1) * cell].max() > 128, f"{font}: {name} is blank"


def test_spread_cards_overlap_and_show_one_index_each_close_together():
    """A fan or a row: each card but the last hides the next one's far corner, so most
    show one index only, and neighbouring indices lie closer than a card's two indices."""
    rng = np.random.default_rng(11)
    closest, one_index = [], 0
    for _ in range(6):
        frame, things = render.render_spread_scene(rng, style="fr-grimaud", loose=0)
        assert frame.shape == (720, 1280, 3)
        cards = [t for t in things if t["belote"]]
        assert 3 <= len(cards) <= 7 and all(t["style"] == "fr-grimaud" for t in cards)
        one_index += sum(len(t["index_boxes"]) == 1 for t in cards[:-1])
        assert len(cards[-1]["index_boxes"]) == 2  # the top card shows both
        centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                            for t in cards for b in t["index_boxes"]])
        d = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1))
        d[np.eye(len(d), dtype=bool)] = np.inf
        side = max(max(b[2] - b[0], b[3] - b[1]) for t in cards for b in t["index_boxes"])
        closest.append(float(d.min()) / side)
    assert one_index >= 6
    assert max(closest) < 2.5  # a card's own two indices lie further apart (PAIR_SPAN)


def test_a_spread_hand_of_a_full_deck_shows_2s_to_6s_as_no_belote_cards():
    rng = np.random.default_rng(12)
    codes = []
    for _ in range(6):
        _, things = render.render_spread_scene(rng, style="en-bicycle", full_deck=True)
        codes += [t["code"] for t in things]
        assert all(t["belote"] == (t["code"] in render.BELOTE_CODES) for t in things)
    low = [c for c in codes if c[0] in "23456"]
    assert low and len(low) < len(codes)
    assert len(set(render.FULL_DECK_CODES)) == 52
    # Without it, a hand is of belote cards only.
    _, things = render.render_spread_scene(np.random.default_rng(12), style="en-bicycle")
    assert all(t["belote"] for t in things)


def test_spread_scene_is_seeded():
    a = render.render_spread_scene(np.random.default_rng(3))
    b = render.render_spread_scene(np.random.default_rng(3))
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


def test_training_draws_spread_frames_with_a_box_for_each_index_seen():
    from vision.lab import dataset as ds

    frames, boxes, crops, labels = ds.synthetic_scenes(5, 2, spread=True)
    assert frames.shape == (2, ds.DET_H, ds.DET_W)
    assert all(len(b) >= 4 for b in boxes)  # 3-7 cards, the top one with two indices
    assert len(crops) == len(labels) and (labels != ds.NONE_INDEX).sum() >= 3 * 8


def test_drawn_fonts_print_a_share_of_drawn_indices_in_other_faces_only_when_asked():
    """``use_extra_styles(drawn_fonts=)``: off (the default), a drawn face is drawn byte for
    byte as before, from the same random draws; on, about that share of the drawn faces
    print their index in another atlas face than the style's, the rest of the face as it
    was, and a share out of 0-1 is refused."""
    st = get_style("en-bicycle")
    box = st.index_box()

    def faces(n: int, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [render_card("QS", st, rng) for _ in range(n)]

    try:
        before = faces(20, 3)
        render.use_extra_styles(art=False, printed=False, french_art=False, drawn_fonts=0.0)
        assert all(np.array_equal(a, b) for a, b in zip(before, faces(20, 3), strict=True))
        render.use_extra_styles(art=False, printed=False, french_art=False, drawn_fonts=0.5)
        after = faces(20, 3)
        x1, y1, x2, y2 = box
        # A new face shows in the index: most of the corner's ink moves.
        changed = [float(np.abs(a[y1:y2, x1:x2].astype(int) - b[y1:y2, x1:x2]).mean()) > 4
                   for a, b in zip(before, after, strict=True)]
        assert 4 <= sum(changed) <= 16
        # Every other face of the atlases, URW Bookman's looped Q among them.
        drawn = {render._drawn_font(st, np.random.default_rng(s)).font for s in range(300)}
        assert drawn == set(render.atlas_fonts()) and "urw-bookman-demi" in drawn
        with pytest.raises(RenderError, match="drawn_fonts"):
            render.use_extra_styles(drawn_fonts=1.5)
    finally:
        render.use_extra_styles(art=False, printed=False, french_art=False)
