"""The one module that imports Qt bindings; every GUI module takes Qt names from here.

Keeping the binding in one file means a switch (or a shim for a Qt version difference)
touches one place, and a test can check that nobody else imports PySide6 directly.
"""

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets
from PySide6.QtCore import (
    QObject,
    QSettings,
    QSize,
    Qt,
    QThread,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QFont, QImage, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QSplitter,
    QStatusBar,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "QAction", "QApplication", "QDockWidget", "QFont", "QImage", "QKeySequence", "QLabel",
    "QListWidget", "QListWidgetItem", "QMainWindow", "QMessageBox", "QObject", "QPixmap",
    "QProgressBar", "QScrollArea", "QSettings", "QSize", "QSplitter", "QStatusBar",
    "QTextBrowser", "QThread", "QTimer", "QVBoxLayout", "QWidget", "Qt", "QtCore", "QtGui",
    "QtSvg", "QtWidgets", "Signal", "Slot",
]
