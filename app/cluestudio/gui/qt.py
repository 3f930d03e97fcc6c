"""The one module that imports Qt bindings; every GUI module takes Qt names from here.

Keeping the binding in one file means a switch (or a shim for a Qt version difference)
touches one place, and a test can check that nobody else imports PySide6 directly.
"""

import sys


def _pyside_version() -> tuple[int, ...]:
    from importlib.metadata import PackageNotFoundError, version

    for distribution in ("PySide6-Essentials", "PySide6"):
        try:
            return tuple(int(p) for p in version(distribution).split(".")[:2])
        except (PackageNotFoundError, ValueError):
            continue
    return (0,)


if sys.version_info < (3, 12) and _pyside_version() >= (6, 12):  # pragma: no cover
    # PySide6 6.12 returns None from every void method without taking a reference: harmless
    # on Python 3.12+, where None is immortal, but on 3.11 each call drops None's refcount by
    # one, and after a few thousand calls (seconds of a running window) the interpreter dies
    # with "none_dealloc: deallocating None". pyproject pins PySide6 < 6.12; for anyone who
    # installed 6.12 anyway, give None (and the bools, same family) a refcount so large it can
    # never reach zero, which is what 3.12 does by design.
    import ctypes

    for _immortal in (None, True, False):
        ctypes.c_ssize_t.from_address(id(_immortal)).value += 1 << 40
    del _immortal

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets
from PySide6.QtCore import (
    QElapsedTimer,
    QEvent,
    QEventLoop,
    QObject,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QRegularExpression,
    QSettings,
    QSignalBlocker,
    QSize,
    Qt,
    QThread,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QImage,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
    QShortcut,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMenuBar,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTabWidget,
    QTextBrowser,
    QTextEdit,
    QToolBar,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "QAbstractItemView", "QAction", "QActionGroup", "QApplication", "QBrush", "QButtonGroup",
    "QCheckBox", "QColor", "QComboBox", "QDialog", "QDialogButtonBox", "QDockWidget",
    "QDoubleSpinBox", "QElapsedTimer", "QEvent", "QEventLoop", "QFileDialog", "QFont",
    "QFontDatabase",
    "QFormLayout", "QFrame", "QGraphicsPixmapItem", "QGraphicsRectItem", "QGraphicsScene",
    "QGraphicsView", "QGridLayout", "QGroupBox", "QHBoxLayout", "QHeaderView", "QImage",
    "QKeyEvent", "QKeySequence", "QLabel", "QLineEdit", "QListWidget", "QListWidgetItem",
    "QMainWindow", "QMenu", "QMenuBar", "QMessageBox", "QObject", "QPainter", "QPalette",
    "QPen", "QPixmap",
    "QPlainTextEdit", "QPoint", "QPointF", "QProgressBar", "QPushButton", "QRadioButton",
    "QRect", "QRectF", "QRegularExpression", "QScrollArea", "QSettings", "QShortcut",
    "QSignalBlocker", "QSize", "QSizePolicy", "QSlider", "QSplitter", "QStackedWidget",
    "QStatusBar", "QSyntaxHighlighter", "QTabWidget", "QTextBrowser", "QTextCharFormat",
    "QTextCursor", "QTextEdit", "QTextFormat", "QThread", "QTimer", "QToolBar", "QToolButton",
    "QTransform",
    "QTreeWidget", "QTreeWidgetItem", "QVBoxLayout", "QWheelEvent", "QWidget", "Qt", "QtCore",
    "QtGui", "QtSvg", "QtWidgets", "Signal", "Slot",
]
