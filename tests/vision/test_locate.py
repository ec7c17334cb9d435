"""The geometry under both designs: quad order, corner and index crops, card outlines."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.locate import corner_crops, find_cards, index_crop, order_quad


@settings(max_examples=50, deadline=None)
@given(angle=st.floats(0, 360), w=st.floats(40, 200), ratio=st.floats(1.2, 1.7),
       start=st.integers(0, 3))
def test_order_quad_starts_on_a_short_edge_and_turns_clockwise(angle, w, ratio, start):
    rect = ((300.0, 300.0), (w, w * ratio), angle)
    pts = np.roll(cv2.boxPoints(rect), start, axis=0)
    quad = order_quad(pts[::-1] if start % 2 else pts)
    edges = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    assert edges[0] <= edges[1] + 1e-3
    # Clockwise on screen (y down) means a positive shoelace sum.
    area = 0.5 * sum(quad[i, 0] * quad[(i + 1) % 4, 1] - quad[(i + 1) % 4, 0] * quad[i, 1]
                     for i in range(4))
    assert area > 0


def test_corner_crops_turn_the_second_index_upright():
    card = np.full((300, 200), 255, np.uint8)
    card[10:60, 10:40] = 0  # a dark mark in the top-left index place
    quad = np.float32([[0, 0], [199, 0], [199, 299], [0, 299]])
    first, second = corner_crops(card, quad)
    assert first.mean() < 200 and second.mean() > 250
    turned = cv2.rotate(card, cv2.ROTATE_180)
    again = corner_crops(turned, quad)[1]
    assert abs(float(again.mean()) - float(first.mean())) < 3


def test_index_crop_is_square_and_centred():
    gray = np.zeros((200, 300), np.uint8)
    gray[90:110, 140:160] = 255
    crop = index_crop(gray, (140, 90, 160, 110), size=32, pad=2.0)
    assert crop.shape == (32, 32)
    assert crop[16, 16] == 255 and crop[2, 2] == 0
    edge = index_crop(gray, (290, 190, 310, 210), size=32)
    assert edge.shape == (32, 32)


def test_finds_a_lone_card_on_felt():
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    truth = cv2.boxPoints(((640.0, 360.0), (150.0, 210.0), 20.0))
    cv2.fillConvexPoly(frame, truth.astype(np.int32), (235, 240, 240))
    quads = find_cards(frame)
    assert len(quads) == 1
    inter, _ = cv2.intersectConvexConvex(quads[0], truth.astype(np.float32))
    assert inter / cv2.contourArea(truth) > 0.9


def test_the_outline_limits_are_the_reader_s_settings():
    """The shape limits of a card's outline ship with the model (its settings'
    ``outline_*``): the shipped record's by default, another record's when given."""
    import dataclasses

    from vision.locate import LocateParams
    from vision.settings import shipped_settings

    assert LocateParams() == LocateParams.of(shipped_settings())
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    truth = cv2.boxPoints(((640.0, 360.0), (150.0, 210.0), 20.0))
    cv2.fillConvexPoly(frame, truth.astype(np.int32), (235, 240, 240))
    square = dataclasses.replace(shipped_settings(), outline_aspect=(0.9, 1.1))
    assert find_cards(frame, LocateParams.of(square)) == []
    assert len(find_cards(frame, LocateParams.of(shipped_settings()))) == 1
