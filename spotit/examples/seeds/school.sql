-- A school district: schools, test scores, funding and enrollment (written for SpotIt's fuzzer).
CREATE TABLE districts (
  district_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE,
  county TEXT,
  "Superintendent Name" TEXT,
  founded DATE
);
CREATE TABLE schools (
  school_id INTEGER PRIMARY KEY,
  district_id INTEGER NOT NULL REFERENCES districts(district_id),
  "School Name" TEXT NOT NULL,
  city TEXT,
  zip TEXT,
  "Grade Span" TEXT,
  charter INTEGER,
  "OpenDate" DATE,
  "ClosedDate" DATE,
  latitude REAL,
  longitude REAL
);
CREATE TABLE scores (
  score_id INTEGER PRIMARY KEY,
  school_id INTEGER REFERENCES schools(school_id),
  year INTEGER,
  subject TEXT,
  "NumTstTakr" INTEGER,
  "AvgScrMath" INTEGER,
  "AvgScrRead" INTEGER,
  "NumGE1500" INTEGER
);
CREATE TABLE funding (
  funding_id INTEGER PRIMARY KEY,
  school_id INTEGER REFERENCES schools(school_id),
  "Fiscal Year" TEXT,
  source TEXT,
  amount REAL,
  approved_on DATETIME
);
CREATE TABLE enrollment (
  enrollment_id INTEGER PRIMARY KEY,
  school_id INTEGER REFERENCES schools(school_id),
  "Academic Year" TEXT,
  "Enrollment (K-12)" INTEGER,
  "FRPM Count" INTEGER,
  "Free Meal Count" INTEGER
);
