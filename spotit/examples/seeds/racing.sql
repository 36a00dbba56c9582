-- Motor racing: circuits, drivers, races, results and lap times (written for SpotIt's fuzzer).
CREATE TABLE circuits (
  "circuitId" INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  location TEXT,
  country TEXT COLLATE NOCASE,
  lat REAL,
  lng REAL,
  alt INTEGER
);
CREATE TABLE drivers (
  "driverId" INTEGER PRIMARY KEY,
  forename TEXT NOT NULL,
  surname TEXT NOT NULL,
  code TEXT,
  number INTEGER,
  dob DATE,
  nationality TEXT
);
CREATE TABLE races (
  "raceId" INTEGER PRIMARY KEY,
  year INTEGER NOT NULL,
  round INTEGER,
  "circuitId" INTEGER REFERENCES circuits("circuitId"),
  name TEXT,
  date DATE,
  time TEXT
);
CREATE TABLE results (
  "resultId" INTEGER PRIMARY KEY,
  "raceId" INTEGER REFERENCES races("raceId"),
  "driverId" INTEGER REFERENCES drivers("driverId"),
  grid INTEGER,
  position INTEGER,
  points REAL,
  laps INTEGER,
  "fastestLapTime" TEXT,
  "fastest lap speed" REAL,
  status TEXT
);
CREATE TABLE "lapTimes" (
  "lapTimeId" INTEGER PRIMARY KEY,
  "raceId" INTEGER REFERENCES races("raceId"),
  "driverId" INTEGER REFERENCES drivers("driverId"),
  lap INTEGER,
  position INTEGER,
  milliseconds INTEGER,
  recorded_at DATETIME
);
